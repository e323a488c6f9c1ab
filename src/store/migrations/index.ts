import type { Migration, MigrationProvider } from 'kysely';
import * as platform from './001-platform.js';

/** Versioned migrations, applied in name order at start. Never edit one that has shipped. */
const migrations: Record<string, Migration> = {
  '001-platform': platform,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
