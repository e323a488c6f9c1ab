import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'libsql';
import { loadConfig } from '../../src/config/index.js';
import { startGateway, type Gateway, type GatewayTimings } from '../../src/gateway.js';
import { createLogger } from '../../src/log.js';
import { SQLITE_FILE } from '../../src/store/database.js';
import { databaseFor, TEST_DATABASE_URL } from './postgres.js';

export const TEST_API_KEY = 'test-environment-key-0123456789';

export interface TestGateway extends Gateway {
  dataDir: string;
  /** Every log line written, when started with `captureLogs`. */
  logs: string[];
  /** What the gateway showed the operator outside its log (the first run's setup token). */
  notices: string[];
  api: ApiClient;
  /** Closes the gateway and removes its data directory. */
  stop(): Promise<void>;
}

/** What helpers need of a gateway: its address and a client of its API (an in-process gateway, or a node of a cluster in a child process). */
export type Endpoint = Pick<TestGateway, 'url' | 'api'>;

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

// Tests read response bodies loosely unless they name a type; the assertions check the shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiClient = <T = any>(method: string, path: string, body?: unknown, options?: { key?: string | null; headers?: Record<string, string>; raw?: string | Uint8Array }) => Promise<ApiResponse<T>>;

export function apiClient(baseUrl: string, defaultKey: string | null = TEST_API_KEY): ApiClient {
  return async (method, urlPath, body, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: string | Uint8Array | undefined = options.raw;
    if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(baseUrl + urlPath, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as never, text };
  };
}

/** A whole gateway on an ephemeral loopback port with a temporary data directory. */
export async function startTestGateway(
  options: { env?: Record<string, string>; dataDir?: string; captureLogs?: boolean; timings?: Partial<GatewayTimings>; appApkPath?: string } = {},
): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'vg-test-'));
  const database = TEST_DATABASE_URL ? await databaseFor(dataDir) : undefined;
  const config = loadConfig({
    ...(database ? { DATABASE_URL: database.url } : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    HTTP_GATEWAY_API_KEY: TEST_API_KEY,
    LOG_LEVEL: options.captureLogs ? 'trace' : 'silent',
    WEBHOOK_RETRY_DELAYS: '50ms,100ms,150ms',
    ...options.env,
  });
  const logs: string[] = [];
  const notices: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const gateway = await startGateway({
    config,
    log: createLogger(config.logLevel, sink),
    timings: { commandTimeoutMs: 1000, reconcileDelayMs: 200, ...options.timings },
    // A test serves its own APK (or none), never the repository's build output.
    appApkPath: options.appApkPath ?? path.join(dataDir, 'voice-gateway.apk'),
    announce: (text) => notices.push(text),
  });
  return {
    ...gateway,
    dataDir,
    logs,
    notices,
    api: apiClient(gateway.url),
    stop: async () => {
      await gateway.close();
      if (!options.dataDir) {
        rmSync(dataDir, { recursive: true, force: true });
        await database?.drop();
      }
    },
  };
}

/**
 * Runs `during` while the gateway's `api_keys` table is renamed away under it (SQLite only), through
 * a second connection: every API-key check then fails as the store failing would (a PostgreSQL pool
 * that times out), not as a refused key.
 */
export async function whileApiKeysAway(g: Pick<TestGateway, 'dataDir'>, during: () => Promise<void>): Promise<void> {
  const db = new Database(path.join(g.dataDir, SQLITE_FILE));
  try {
    db.exec('ALTER TABLE api_keys RENAME TO api_keys_away');
    try {
      await during();
    } finally {
      db.exec('ALTER TABLE api_keys_away RENAME TO api_keys');
    }
  } finally {
    db.close();
  }
}
