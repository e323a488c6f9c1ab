import type { Db } from './database.js';
import type { DevicesTable, PairingCodesTable } from './schema.js';

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
    const r = await this.db.deleteFrom('devices').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
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
