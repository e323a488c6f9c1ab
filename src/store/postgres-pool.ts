import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { GatewayError } from '../errors.js';

/** Also a query's (the server cancels it, then the client gives up a moment later). */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;
/** What the client waits beyond the server's statement_timeout, so a live server's own cancel comes first. */
const CLIENT_MARGIN_MS = 500;

/**
 * pg's words for "the database did not answer in time or cannot be reached": the pool's and the
 * client's timeouts, the server's statement_timeout (57014), a server shutting down or full, a lost
 * connection.
 */
const UNAVAILABLE_CODES = new Set(['57014', '57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE']);
const UNAVAILABLE_MESSAGES = /timeout exceeded when trying to connect|Query read timeout|Connection terminated/;

function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || UNAVAILABLE_MESSAGES.test(err.message);
}

/** 503 in the error shape: every edge answers it as it is (REST, WebSocket upgrades). */
export const storeUnavailable = (): GatewayError =>
  new GatewayError('SERVICE_UNAVAILABLE', 'The database did not answer in time or cannot be reached; try again shortly', { retryAfter: 5 });

/**
 * Every wait on PostgreSQL has a timeout of the gateway's own: for a connection (from the pool or
 * a new one), and for each statement (the server's statement_timeout, the client's query_timeout
 * just after). One that expires throws SERVICE_UNAVAILABLE; a connection whose query timed out is
 * dropped, not reused (its answer may still come, and pg would queue the next query behind it).
 */
export function guardedPostgresPool(connectionString: string, timeoutMs: number, onIdleError: (err: Error) => void): PostgresPool {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + CLIENT_MARGIN_MS,
  });
  // An idle connection the server drops (a restart, an administrator) must not bring the gateway
  // down: the pool replaces it on the next query.
  pool.on('error', onIdleError);
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw isUnavailable(err) ? storeUnavailable() : err;
      }
      let broken: Error | undefined;
      const query = async <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
        if (broken) throw storeUnavailable();
        try {
          return (await client.query(sql, parameters as unknown[])) as unknown as PostgresQueryResult<R>;
        } catch (err) {
          if (!isUnavailable(err)) throw err;
          broken = err as Error;
          throw storeUnavailable();
        }
      };
      return { query, release: () => client.release(broken) } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
