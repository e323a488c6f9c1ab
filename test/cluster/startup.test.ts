import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/store/index.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { closedPort } from '../streams/helpers.js';
import { clusterDatabase, logged, logRecords, newSecretKey, POSTGRES, startNode, type ClusterNode } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}, 30_000);

async function cluster(): Promise<{ db: Awaited<ReturnType<typeof clusterDatabase>>; start: (name: string, env?: Record<string, string>, secretKey?: string) => Promise<ClusterNode>; secretKey: string }> {
  const db = await clusterDatabase();
  cleanups.push(() => db.drop());
  const secretKey = newSecretKey();
  return {
    db,
    secretKey,
    start: async (name, env = {}, key = secretKey) => {
      const node = await startNode({ databaseUrl: db.url, name, secretKey: key, env });
      cleanups.push(() => node.stop());
      return node;
    },
  };
}

describe.skipIf(!POSTGRES)('several nodes starting (issue 14, points 7 and 8)', () => {
  it('migrates an empty database once when three nodes start together, and makes one owner and one webhook secret', async () => {
    const { db, start } = await cluster();
    const admin = { ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'correct horse battery' };
    const nodes = await Promise.all(['a', 'b', 'c'].map((name) => start(name, admin)));

    const migrations = await db.query<{ name: string }>('select name from kysely_migration order by name');
    expect(migrations.map((m) => m.name)).toEqual(Object.keys(await migrationProvider('postgres').getMigrations()).sort());
    await Promise.all(nodes.map((node) => logged(node, (r) => r.msg === 'gateway listening', 'that it listens')));
    const applied = nodes.flatMap((node) => logRecords(node).filter((r) => r.msg === 'migration applied').map((r) => r.migration));
    expect(applied.sort()).toEqual(migrations.map((m) => m.name));

    expect(await db.query('select email from users')).toEqual([{ email: 'owner@example.com' }]);
    expect(await db.query(`select key from settings where key = 'generated.webhookSecret'`)).toHaveLength(1);
    const hints = await Promise.all(nodes.map(async (node) => (await node.api<{ settings: { webhookSecret: { hint: string } } }>('GET', '/v1/settings')).body.settings.webhookSecret.hint));
    expect(new Set(hints).size).toBe(1);
  }, 60_000);

  it('accepts the setup token any node printed, and lets one first-run request win across nodes', async () => {
    const { start } = await cluster();
    const [a, b] = await Promise.all([start('a'), start('b')]);
    // Shown on each node's standard error, never in its structured log.
    const tokenOf = async (node: ClusterNode) => {
      const line = await node.output.next((l) => /setup token vgsetup_/.test(l), { what: `${node.name} showing its setup token` });
      expect(logRecords(node).some((r) => /vgsetup_/.test(JSON.stringify(r)))).toBe(false);
      return /setup token (vgsetup_\S+)/.exec(line!)![1]!;
    };
    const setup = (node: ClusterNode, email: string, setupToken: string) =>
      node.api('POST', '/v1/auth/setup', { email, password: 'correct horse battery', setupToken }, { key: null, headers: { origin: node.url } });
    // Node b's token, sent to node a, as a balancer may send the console's request.
    const [tokenA, tokenB] = await Promise.all([tokenOf(a), tokenOf(b)]);
    const [one, two] = await Promise.all([setup(a, 'first@example.com', tokenB), setup(b, 'second@example.com', tokenA)]);
    expect([one.status, two.status].sort()).toEqual([201, 409]);
  }, 60_000);

  it('waits for an advisory lock another gateway holds for longer than DATABASE_TIMEOUT, then runs the work', async () => {
    const { db } = await cluster();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vg-lock-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const store = await openStore({ dataDir, databaseUrl: db.url, timeoutMs: 200, log: createLogger('silent') });
    cleanups.push(() => store.close());
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    cleanups.push(() => other.end());
    const name = 'absent phone dev_lock_test';
    await other.query('select pg_advisory_lock(hashtextextended($1, 0))', [name]);

    let ran = false;
    const work = store.exclusively(async () => (ran = true), name);
    // Longer than the store's statement timeout (200 ms): a lock wait that were one statement is cancelled by then.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(ran).toBe(false);
    await other.query('select pg_advisory_unlock(hashtextextended($1, 0))', [name]);
    await expect(work).resolves.toBe(true);
  }, 30_000);

  it('refuses to start a node whose secret key does not open what the cluster sealed', async () => {
    const { start } = await cluster();
    await start('a');
    await expect(start('b', {}, newSecretKey())).rejects.toThrow(/the key from SECRET_KEY does not open the secrets stored in the database/);
  }, 60_000);

  it('says at start when NODE_URL does not reach the node, and when it reaches another', async () => {
    const { start } = await cluster();
    const a = await start('a');
    const nowhere = await start('b', { NODE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect((await logged(nowhere, (r) => r.level === 50, 'an error')).msg).toMatch(/cannot reach itself at http:\/\/127\.0\.0\.1:\d+ .*set NODE_URL/);
    const elsewhere = await start('c', { NODE_URL: a.url });
    expect((await logged(elsewhere, (r) => r.level === 50, 'an error')).msg).toMatch(new RegExp(`reaches another node \\(${a.nodeId}\\)`));
    expect(logRecords(a).some((r) => r.level === 50)).toBe(false);
    // An https:// NODE_URL (the configuration accepts it: TLS in front of each node) is asked over TLS, not refused by the HTTP client.
    const tls = await start('d', { NODE_URL: `https://127.0.0.1:${await closedPort()}` });
    expect((await logged(tls, (r) => r.level === 50, 'an error')).msg).toMatch(/cannot reach itself at https:\/\/127\.0\.0\.1:\d+ .*set NODE_URL/);
  }, 60_000);

  it('lets go at once of what a stopping node held', async () => {
    const { db, start } = await cluster();
    const [, b] = await Promise.all([start('a'), start('b')]);
    expect(await db.query('select id from cluster_nodes where id = $1', [b.nodeId])).toHaveLength(1);
    await b.stop();
    expect(await db.query('select id from cluster_nodes where id = $1', [b.nodeId])).toEqual([]);
  }, 60_000);
});
