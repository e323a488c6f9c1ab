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

  /** Marks an unused, unexpired code used; true when this call was the one that used it. */
  async usePairingCode(codeHash: string, now: string): Promise<PairingCodesTable | undefined> {
    const r = await this.db
      .updateTable('pairing_codes')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return undefined;
    return this.db.selectFrom('pairing_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  }

  async deleteExpiredPairingCodes(now: string): Promise<void> {
    await this.db.deleteFrom('pairing_codes').where('expires_at', '<', now).execute();
  }
}
