import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Driver, type SqliteDatabase } from 'kysely';
import type { Logger } from 'pino';
import { migrationProvider } from './migrations/index.js';
import type { Tables } from './schema.js';

export type Db = Kysely<Tables>;

export interface Store {
  db: Db;
  dialect: 'sqlite' | 'postgres';
  /** The database's connection string (PostgreSQL), for a connection of its own (LISTEN). */
  url: string | undefined;
  /**
   * Runs `work` while no other gateway on the same database runs work of the same name (by default
   * the start-up's: migrations and first-run writes happen once even when several nodes start
   * together). A PostgreSQL advisory lock held on a connection of its own; one process needs none.
   */
  exclusively<T>(work: () => Promise<T>, name?: string): Promise<T>;
  close(): Promise<void>;
}

/** The advisory lock of the gateways' start-up. */
const STARTUP_LOCK = 'voice-gateway start-up';
/** Work waits at most this long for another node's of the same name. */
const LOCK_TIMEOUT = '60s';

function exclusively(db: Db, dialect: Store['dialect']): Store['exclusively'] {
  if (dialect === 'sqlite') return (work) => work();
  return (work, name = STARTUP_LOCK) =>
    db.connection().execute(async (connection) => {
      await sql`select set_config('lock_timeout', ${LOCK_TIMEOUT}, false)`.execute(connection);
      await sql`select pg_advisory_lock(hashtextextended(${name}, 0))`.execute(connection);
      try {
        return await work();
      } finally {
        await sql`select pg_advisory_unlock(hashtextextended(${name}, 0))`.execute(connection);
        await sql`select set_config('lock_timeout', '0', false)`.execute(connection);
      }
    });
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

/** Opens the embedded SQLite database under dataDir, or PostgreSQL when a URL is given, and migrates it. */
export async function openStore(options: { dataDir: string; databaseUrl?: string | undefined; log: Logger }): Promise<Store> {
  let db: Db;
  let dialect: Store['dialect'];
  if (options.databaseUrl) {
    dialect = 'postgres';
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection the server drops (a restart, an administrator) must not bring the gateway
    // down: the pool replaces it on the next query.
    pool.on('error', (err) => options.log.warn({ err }, 'an idle PostgreSQL connection failed'));
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
  }
  const migrator = new Migrator({ db, provider: migrationProvider(dialect) });
  const once = exclusively(db, dialect);
  const { error, results } = await once(() => migrator.migrateToLatest()).catch((err: unknown) => ({ error: err, results: undefined }));
  for (const r of results ?? []) {
    if (r.status === 'Success') options.log.info({ migration: r.migrationName }, 'migration applied');
  }
  if (error) {
    await db.destroy();
    throw error instanceof Error ? error : new Error(String(error));
  }
  return { db, dialect, url: options.databaseUrl, exclusively: once, close: () => db.destroy() };
}
