import type { Db } from './database.js';

/** A key-value table of JSON values: the settings of the spec and the assistant's settings. */
export class SettingsRepo {
  constructor(private readonly db: Db) {}

  async all(): Promise<Map<string, unknown>> {
    const rows = await this.db.selectFrom('settings').select(['key', 'value']).execute();
    return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  }

  async get(key: string): Promise<unknown> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row ? (JSON.parse(row.value) as unknown) : undefined;
  }

  /** Writes every entry in one transaction; `undefined` deletes the key. */
  async write(entries: Record<string, unknown>): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (tx) => {
      for (const [key, value] of Object.entries(entries)) {
        if (value === undefined) {
          await tx.deleteFrom('settings').where('key', '=', key).execute();
        } else {
          const row = { key, value: JSON.stringify(value), updated_at: now };
          await tx
            .insertInto('settings')
            .values(row)
            .onConflict((oc) => oc.column('key').doUpdateSet({ value: row.value, updated_at: now }))
            .execute();
        }
      }
    });
  }
}
