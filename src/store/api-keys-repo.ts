import type { Db } from './database.js';
import type { ApiKeysTable } from './schema.js';

export type ApiKeyRow = ApiKeysTable;

export class ApiKeysRepo {
  constructor(private readonly db: Db) {}

  async insert(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  list(): Promise<ApiKeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  }

  byPrefix(prefix: string): Promise<ApiKeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).execute();
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
