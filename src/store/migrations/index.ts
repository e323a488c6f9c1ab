import type { Migration, MigrationProvider } from 'kysely';
import * as platform from './001-platform.js';
import { calls } from './002-calls.js';

export type Dialect = 'sqlite' | 'postgres';

/** Versioned migrations, applied in name order at start. Never edit one that has shipped. */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '001-platform': platform,
    '002-calls': { up: calls(dialect) },
  };
  return { getMigrations: () => Promise.resolve(migrations) };
}
