import type { Db } from './database.js';
import type { DeviceDiagnosticsTable, DevicesTable, PairingCodesTable } from './schema.js';

export type DeviceRow = DevicesTable;

export class DevicesRepo {
  constructor(private readonly db: Db) {}

  async insert(row: DeviceRow): Promise<void> {
    await this.db.insertInto('devices').values(row).execute();
  }

  list(): Promise<DeviceRow[]> {
    return this.db.selectFrom('devices').selectAll().orderBy('registered_at', 'asc').orderBy('id', 'asc').execute();
  }

  get(id: string): Promise<DeviceRow | undefined> {
    return this.db.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byTokenHash(hash: string): Promise<DeviceRow | undefined> {
    return this.db.selectFrom('devices').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }

  async update(id: string, patch: Partial<Omit<DeviceRow, 'id'>>): Promise<void> {
    await this.db.updateTable('devices').set(patch).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // The foreign key's cascade does it too; said here so that it never rests on a pragma.
      await tx.deleteFrom('device_diagnostics').where('device_id', '=', id).execute();
      // Its calls stay in the log: they keep the phone's name, which goes with its row.
      const phone = await tx.selectFrom('devices').select('name').where('id', '=', id).executeTakeFirst();
      if (phone) await tx.updateTable('calls').set({ device_name: phone.name }).where('device_id', '=', id).execute();
      const r = await tx.deleteFrom('devices').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  /** Replaces the phone's last self-test report; nothing when the phone was removed meanwhile. */
  async putDiagnostics(row: DeviceDiagnosticsTable): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      if (!(await tx.selectFrom('devices').select('id').where('id', '=', row.device_id).executeTakeFirst())) return;
      await tx
        .insertInto('device_diagnostics')
        .values(row)
        .onConflict((oc) => oc.column('device_id').doUpdateSet({ received_at: row.received_at, report: row.report }))
        .execute();
    });
  }

  getDiagnostics(deviceId: string): Promise<DeviceDiagnosticsTable | undefined> {
    return this.db.selectFrom('device_diagnostics').selectAll().where('device_id', '=', deviceId).executeTakeFirst();
  }

  async insertPairingCode(row: PairingCodesTable): Promise<void> {
    await this.db.insertInto('pairing_codes').values(row).execute();
  }

  /**
   * Marks an unused, unexpired code used and inserts the phone, in one transaction: false when the
   * code cannot be used; a failed insert leaves the code unused.
   */
  async pairWithCode(codeHash: string, now: string, device: DeviceRow): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .updateTable('pairing_codes')
        .set({ used_at: now })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await tx.insertInto('devices').values(device).execute();
      return true;
    });
  }

  /** Whether a pairing code that has not expired was made for this public address. */
  async pairingAddressLive(publicUrl: string, now: string): Promise<boolean> {
    const row = await this.db.selectFrom('pairing_codes').select('code_hash').where('public_url', '=', publicUrl).where('expires_at', '>', now).executeTakeFirst();
    return row !== undefined;
  }

  async deleteExpiredPairingCodes(now: string): Promise<void> {
    await this.db.deleteFrom('pairing_codes').where('expires_at', '<', now).execute();
  }
}
