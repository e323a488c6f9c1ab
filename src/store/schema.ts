import type { Generated } from 'kysely';

/**
 * Row types of every table. Timestamps are ISO 8601 UTC strings, booleans are 0/1 integers and
 * JSON is text on both SQLite and PostgreSQL, so that the domain never sees a dialect difference.
 */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
}

export interface Tables {
  settings: SettingsTable;
  api_keys: ApiKeysTable;
}

export type { Generated };
