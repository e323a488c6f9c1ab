import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type Driver, type SqliteDatabase } from 'kysely';
import type { Logger } from 'pino';
import { migrationProvider } from './migrations/index.js';
import { DEFAULT_DATABASE_TIMEOUT_MS, guardedPostgresPool } from './postgres-pool.js';
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
  /** Resolves once the database answers a query (within DATABASE_TIMEOUT on PostgreSQL). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The advisory lock of the gateways' start-up. */
const STARTUP_LOCK = 'voice-gateway start-up';
/** Work waits at most this long for another node's of the same name (another node's migrations may take long). */
const LOCK_WAIT_MS = 60_000;
/** How often a waiting node asks for the lock again. */
const LOCK_POLL_MS = 50;

/**
 * The lock is asked for with pg_try_advisory_lock, again and again until LOCK_WAIT_MS: each
 * statement returns at once, so the pool's statement timeout (DATABASE_TIMEOUT) never cuts a long
 * wait short, and the wait is the gateway's own.
 */
function exclusively(db: Db, dialect: Store['dialect']): Store['exclusively'] {
  if (dialect === 'sqlite') return (work) => work();
  return (work, name = STARTUP_LOCK) =>
    db.connection().execute(async (connection) => {
      const deadline = Date.now() + LOCK_WAIT_MS;
      for (;;) {
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtextextended(${name}, 0)) as locked`.execute(connection);
        if (rows[0]?.locked) break;
        if (Date.now() > deadline) throw new Error(`another gateway held the lock '${name}' for more than ${LOCK_WAIT_MS / 1000} s`);
        await sleep(LOCK_POLL_MS);
      }
      try {
        return await work();
      } finally {
        await sql`select pg_advisory_unlock(hashtextextended(${name}, 0))`.execute(connection);
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
    // Two connections: one holds the start-up lock while the migrations run on the other.
    const migrations = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: options.databaseUrl, max: 2, connectionTimeoutMillis: timeoutMs }) }) });
    try {
      await exclusively(migrations, dialect)(() => migrate(migrations, dialect, options.log));
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
  return {
    db,
    dialect,
    url: options.databaseUrl,
    exclusively: exclusively(db, dialect),
    ping: () => sql`select 1`.execute(db).then(() => undefined),
    close: () => db.destroy(),
  };
}

async function migrate(db: Db, dialect: Store['dialect'], log: Logger): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider(dialect) }).migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === 'Success') log.info({ migration: r.migrationName }, 'migration applied');
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
