import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { GatewayTimings } from '../../src/gateway.js';
import { apiClient, TEST_API_KEY, type ApiClient, type Endpoint } from '../helpers/gateway.js';
import { Recorded } from '../helpers/waits.js';
import { CLUSTER_POSTGRES_URL } from '../helpers/postgres.js';

export const POSTGRES = CLUSTER_POSTGRES_URL;

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The contract's timings, shortened: a node is dead 2 s after its last heartbeat instead of 15 s. */
export const CLUSTER_TIMINGS: Partial<GatewayTimings> = {
  commandTimeoutMs: 1000,
  reconcileDelayMs: 200,
  pingIntervalMs: 500,
  clusterHeartbeatMs: 250,
  clusterLeaseMs: 2000,
  clusterClaimPollMs: 200,
  clusterSettingsRefreshMs: 1000,
};

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database for one cluster, and a client of it for the test's own reads. */
export async function clusterDatabase(): Promise<{ url: string; query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>; drop(): Promise<void> }> {
  const name = `vg_cluster_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = new URL(POSTGRES!);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  // Dropping the database ends its connections; an idle one may hear of it first.
  pool.on('error', () => undefined);
  return {
    url: url.toString(),
    query: async (text, values) => (await pool.query(text, values)).rows,
    drop: async () => {
      await pool.end();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

export interface ClusterNode extends Endpoint {
  name: string;
  nodeId: string;
  port: number;
  /** Every line the node wrote (its JSON logs), recorded. */
  output: Recorded<string>;
  /** The same lines, as an array. */
  logs: string[];
  process: ChildProcess;
  /** SIGKILL: no shutdown, no goodbye to the cluster. */
  kill(): Promise<void>;
  /** A graceful stop (SIGTERM's path). */
  stop(): Promise<void>;
}

export interface NodeOptions {
  databaseUrl: string;
  name: string;
  /** The cluster's shared secret key (SECRET_KEY). */
  secretKey: string;
  env?: Record<string, string>;
  timings?: Partial<GatewayTimings>;
}

/** A new SECRET_KEY. */
export const newSecretKey = (): string => randomBytes(32).toString('base64');

/**
 * Starts a gateway in a child process (`node --import tsx test/cluster/node-process.ts`), so a test
 * can kill it with SIGKILL; resolves once it serves, or rejects with what it printed.
 */
export function startNode(o: NodeOptions): Promise<ClusterNode> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `vg-${o.name}-`));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: o.databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    HTTP_GATEWAY_API_KEY: TEST_API_KEY,
    SECRET_KEY: o.secretKey,
    LOG_LEVEL: 'info',
    WEBHOOK_RETRY_DELAYS: '200ms,300ms,400ms',
    VG_TEST_TIMINGS: JSON.stringify({ ...CLUSTER_TIMINGS, ...o.timings }),
    ...o.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test/cluster/node-process.ts')], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const output = new Recorded<string>(`node ${o.name}`, (line) => line.slice(0, 160));
  const logs = output.items;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) output.add(line);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${o.name} did not start within 30 s:\n${logs.slice(-20).join('\n')}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node ${o.name} exited (${code}) before it served:\n${logs.slice(-20).join('\n')}`));
    });
    child.on('message', (m: { type: string; url?: string; nodeId?: string; message?: string }) => {
      if (m.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`node ${o.name} failed to start: ${m.message}`));
      }
      if (m.type !== 'ready' || !m.url) return;
      clearTimeout(timer);
      const url = m.url;
      const api: ApiClient = apiClient(url);
      resolve({
        name: o.name,
        nodeId: m.nodeId ?? '',
        url,
        port: Number(new URL(url).port),
        api,
        output,
        logs,
        process: child,
        kill: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.send({ type: 'stop' });
          const force = setTimeout(() => child.kill('SIGKILL'), 8000);
          await exited;
          clearTimeout(force);
        },
      });
    });
  });
}

/** One log line parsed (pino JSON), or null. */
const record = (line: string): Record<string, unknown> | null => {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
};

/** Log lines of a node, parsed (pino JSON). */
export const logRecords = (node: ClusterNode): Array<Record<string, unknown>> => node.logs.flatMap((line) => {
  const r = record(line);
  return r ? [r] : [];
});

/** The first log record of a node that passes `test`, once its output has been read (it may trail the node's IPC messages). */
export const logged = async (node: ClusterNode, test: (record: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> => {
  const line = await node.output.next((l) => {
    const r = record(l);
    return r !== null && test(r);
  }, { what: `${node.name} logging ${what}` });
  return record(line)!;
};

/**
 * A TCP load balancer on 127.0.0.1, as nginx's stream module or HAProxy in TCP mode would be: each
 * connection goes to the next backend in turn, and to the one after when a backend refuses it (a
 * dead node). `prefer` sends the next connections to one backend first.
 */
export class Balancer {
  private turn = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    private readonly ports: number[],
  ) {
    server.on('connection', (client) => {
      this.sockets.add(client);
      client.once('close', () => this.sockets.delete(client));
      client.on('error', () => undefined);
      this.route(client, 0);
    });
  }

  static async start(ports: number[]): Promise<Balancer> {
    const server = net.createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new Balancer(server, ports);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next connections try the backend on `port` first. */
  prefer(port: number): void {
    this.turn = Math.max(0, this.ports.indexOf(port));
  }

  private route(client: net.Socket, tried: number): void {
    if (tried >= this.ports.length || client.destroyed) return void client.destroy();
    const port = this.ports[(this.turn + tried) % this.ports.length]!;
    const backend = net.connect(port, '127.0.0.1');
    let connected = false;
    backend.on('error', () => {
      if (connected) client.destroy();
      else this.route(client, tried + 1);
    });
    backend.once('connect', () => {
      connected = true;
      this.turn = (this.turn + tried + 1) % this.ports.length;
      this.sockets.add(backend);
      backend.once('close', () => {
        this.sockets.delete(backend);
        client.destroy();
      });
      client.once('close', () => backend.destroy());
      backend.setNoDelay(true);
      client.setNoDelay(true);
      client.pipe(backend);
      backend.pipe(client);
      client.resume();
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
