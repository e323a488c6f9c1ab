import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type Driver, type SqliteDatabase } from 'kysely';
import type { Logger } from 'pino';
import { migrationProvider } from './migrations/index.js';
import { DEFAULT_DATABASE_TIMEOUT_MS, guardedPostgresPool } from './postgres-pool.js';
import type { Tables } from './schema.js';

export type Db = Kysely<Tables>;

export interface Store {
  db: Db;
  dialect: 'sqlite' | 'postgres';
  /** Resolves once the database answers a query (within DATABASE_TIMEOUT on PostgreSQL). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const SQLITE_FILE = 'gateway.db';

/** How long queries may run back to back in one turn of the event loop. */
const SQLITE_SLICE_MS = 4;

/**
 * libsql runs every statement synchronously and Kysely resolves its promise at once, so a chain of
 * queries (a phone's burst of events, each awaiting the store) would run in one microtask drain
 * while no socket is read: under a burst, REST requests waited seconds. Once queries have run for
 * a slice in this turn, the next query or transaction waits for the next turn, so sockets are read
 * in between. A query that waited runs in that next turn whatever the slice, and the slice starts
 * afresh at the start of the turn: every waiting chain (a REST request among them) gets one query
 * per turn, none can take the turn for itself. A transaction runs without a break.
 */
class TurnTakingSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    let sliceStart = performance.now();
    let turnMarked = false;
    const newTurn = (): void => {
      turnMarked = false;
      sliceStart = performance.now();
    };
    driver.acquireConnection = async () => {
      if (performance.now() - sliceStart > SQLITE_SLICE_MS) {
        // Queued before the waiting query, so the next turn starts with a fresh slice.
        if (!turnMarked) {
          turnMarked = true;
          setImmediate(newTurn);
        }
        await nextTurn();
      }
      return acquire();
    };
    return driver;
  }
}

/**
 * Opens the embedded SQLite database under dataDir, or PostgreSQL when a URL is given, and migrates
 * it. On PostgreSQL every wait has `timeoutMs` (DATABASE_TIMEOUT), except the migrations' own
 * statements, which may take long once on a big database.
 */
export async function openStore(options: { dataDir: string; databaseUrl?: string | undefined; timeoutMs?: number | undefined; log: Logger }): Promise<Store> {
  let db: Db;
  let dialect: Store['dialect'];
  if (options.databaseUrl) {
    dialect = 'postgres';
    const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
    const migrations = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: options.databaseUrl, max: 1, connectionTimeoutMillis: timeoutMs }) }) });
    try {
      await migrate(migrations, dialect, options.log);
    } finally {
      await migrations.destroy();
    }
    const pool = guardedPostgresPool(options.databaseUrl, timeoutMs, (err) => options.log.warn({ err }, 'an idle PostgreSQL connection failed'));
    db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    // Only the gateway's own user may read the data: password and token hashes, calls, messages.
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const location = path.join(options.dataDir, SQLITE_FILE);
    const file = new Database(location);
    // Before WAL mode: SQLite gives the -wal and -shm files the database file's permissions.
    chmodSync(location, 0o600);
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = NORMAL');
    file.pragma('busy_timeout = 5000');
    file.pragma('foreign_keys = ON');
    db = new Kysely<Tables>({ dialect: new TurnTakingSqliteDialect({ database: file as unknown as SqliteDatabase }) });
    await migrate(db, dialect, options.log).catch(async (err: unknown) => {
      await db.destroy();
      throw err;
    });
  }
  return { db, dialect, ping: () => sql`select 1`.execute(db).then(() => undefined), close: () => db.destroy() };
}

async function migrate(db: Db, dialect: Store['dialect'], log: Logger): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider(dialect) }).migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === 'Success') log.info({ migration: r.migrationName }, 'migration applied');
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
