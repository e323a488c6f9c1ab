import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { show, storedContaining, tempDir } from './support.js';
import type { ApiKey } from '../../src/http/api-types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('API keys', () => {
  let g: TestGateway;
  let dataDir: string;

  const create = async (name: string): Promise<ApiKey & { key: string }> => {
    const res = await g.api<{ apiKey: ApiKey & { key: string } }>('POST', '/v1/api-keys', { name });
    expect(res.status, show(res)).toBe(201);
    return res.body.apiKey;
  };
  const list = async (key?: string): Promise<ApiKey[]> => {
    const res = await g.api<{ apiKeys: ApiKey[] }>('GET', '/v1/api-keys', undefined, key ? { key } : {});
    expect(res.status, show(res)).toBe(200);
    return res.body.apiKeys;
  };

  beforeEach(async () => {
    dataDir = tempDir();
    g = await startTestGateway({ dataDir });
  });
  afterEach(async () => {
    await g.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a key: 201, gw_ prefix, the full key this once', async () => {
    const before = Date.now();
    const res = await g.api<{ apiKey: ApiKey }>('POST', '/v1/api-keys', { name: 'billing service' });
    expect(res.status, show(res)).toBe(201);
    const apiKey = res.body.apiKey;
    expect(apiKey).toEqual({
      id: expect.stringMatching(UUID),
      name: 'billing service',
      prefix: expect.stringMatching(/^gw_/),
      createdAt: expect.stringMatching(ISO),
      lastUsedAt: null,
      key: expect.stringMatching(/^gw_.{20,}$/),
    });
    expect(apiKey.key!.startsWith(apiKey.prefix)).toBe(true);
    expect(apiKey.prefix.length).toBeLessThan(apiKey.key!.length - 16);
    expect(Date.parse(apiKey.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(apiKey.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

    const other = await create('another');
    expect(other.key).not.toBe(apiKey.key);
    expect(other.id).not.toBe(apiKey.id);
  });

  it('lists keys newest first, never with the key itself', async () => {
    const created: Array<ApiKey & { key: string }> = [];
    for (const name of ['first', 'second', 'third', 'fourth']) created.push(await create(name));
    const res = await g.api<{ apiKeys: ApiKey[] }>('GET', '/v1/api-keys');
    expect(res.status, show(res)).toBe(200);
    expect(res.body.apiKeys.map((k) => k.name)).toEqual(['fourth', 'third', 'second', 'first']);
    for (const k of res.body.apiKeys) {
      expect(k).not.toHaveProperty('key');
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix']);
    }
    for (const { key } of created) expect(res.text).not.toContain(key);
    expect(res.body.apiKeys[0]).toEqual({ ...created[3], key: undefined, lastUsedAt: null });
  });

  it('orders keys made at the same moment unambiguously, by createdAt', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => create(`burst ${i}`)));
    const times = (await list()).map((k) => Date.parse(k.createdAt));
    for (let i = 1; i < times.length; i++) expect(times[i], `createdAt of keys ${i - 1} and ${i}: ${times.join(', ')}`).toBeLessThan(times[i - 1]!);
  });

  it('authenticates with a new key, as Bearer and as x-api-key, and records lastUsedAt', async () => {
    const { id, key, createdAt } = await create('worker');
    expect((await list()).find((k) => k.id === id)?.lastUsedAt).toBeNull();

    const bearer = await g.api('GET', '/v1/settings', undefined, { key });
    expect(bearer.status, show(bearer)).toBe(200);
    const header = await g.api('GET', '/v1/settings', undefined, { key: null, headers: { 'x-api-key': key } });
    expect(header.status, show(header)).toBe(200);

    const used = (await list()).find((k) => k.id === id);
    expect(used?.lastUsedAt, JSON.stringify(used)).toMatch(ISO);
    expect(Date.parse(used!.lastUsedAt!)).toBeGreaterThanOrEqual(Date.parse(createdAt));
    expect(Date.parse(used!.lastUsedAt!)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('lets a created key manage keys and settings like the environment key', async () => {
    const { key } = await create('admin tool');
    const made = await g.api<{ apiKey: ApiKey }>('POST', '/v1/api-keys', { name: 'made by a key' }, { key });
    expect(made.status, show(made)).toBe(201);
    const names = (await list(key)).map((k) => k.name);
    expect(names).toEqual(['made by a key', 'admin tool']);
    const put = await g.api('PUT', '/v1/settings', { publicUrl: 'https://by-key.example' }, { key });
    expect(put.status, show(put)).toBe(200);
  });

  it('revokes a key with DELETE: 204, and it fails at once', async () => {
    const doomed = await create('doomed');
    const kept = await create('kept');
    expect((await g.api('GET', '/v1/settings', undefined, { key: doomed.key })).status).toBe(200);

    const del = await g.api('DELETE', `/v1/api-keys/${doomed.id}`);
    expect(del.status, show(del)).toBe(204);
    expect(del.text).toBe('');

    for (const options of [{ key: doomed.key }, { key: null, headers: { 'x-api-key': doomed.key } }]) {
      const after = await g.api('GET', '/v1/settings', undefined, options);
      expect(after.status, show(after)).toBe(401);
      expect(after.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    expect((await list()).map((k) => k.id)).toEqual([kept.id]);
    expect((await g.api('GET', '/v1/settings', undefined, { key: kept.key })).status).toBe(200);

    const again = await g.api('DELETE', `/v1/api-keys/${doomed.id}`);
    expect(again.status, show(again)).toBe(404);
    expect(again.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('lets a key revoke itself, after which it fails', async () => {
    const self = await create('self');
    const del = await g.api('DELETE', `/v1/api-keys/${self.id}`, undefined, { key: self.key });
    expect(del.status, show(del)).toBe(204);
    expect((await g.api('GET', '/v1/api-keys', undefined, { key: self.key })).status).toBe(401);
  });

  it('answers 404 NOT_FOUND for an unknown id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await g.api('DELETE', `/v1/api-keys/${id}`);
      expect(res.status, show(res)).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });

  it('validates the name: required, not empty, at most 80 characters', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^is required$/],
      [{ name: '' }, /^must not be empty$/],
      [{ name: '   ' }, /^must not be empty$/],
      [{ name: 'x'.repeat(81) }, /^must be at most 80 characters$/],
      [{ name: 42 }, /^must be text$/],
      [{ name: null }, /^must be text$/],
    ];
    for (const [body, problem] of cases) {
      const res = await g.api('POST', '/v1/api-keys', body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(res.body, JSON.stringify(body)).toMatchObject({
        error: { code: 'VALIDATION_ERROR', issues: [expect.objectContaining({ path: 'body.name', message: expect.stringMatching(problem) })] },
      });
    }
    expect(await list()).toEqual([]);

    const longest = await create('y'.repeat(80));
    expect(longest.name).toHaveLength(80);
    const unicode = await create('Zählwerk ☎');
    expect(unicode.name).toBe('Zählwerk ☎');
  });

  it('keeps only a hash: the key is not findable anywhere in DATA_DIR', async () => {
    const keys: Array<ApiKey & { key: string }> = [];
    for (const name of ['a', 'b', 'keeps-only-a-hash']) keys.push(await create(name));
    // Use them, so lastUsedAt writes hit the WAL too.
    for (const { key } of keys) expect((await g.api('GET', '/v1/settings', undefined, { key })).status).toBe(200);

    const check = async () => {
      for (const { key, prefix } of keys) {
        expect(await storedContaining(dataDir, key), key).toEqual([]);
        // Nor its secret part, in case the prefix were stored apart from it.
        expect(await storedContaining(dataDir, key.slice(prefix.length)), key).toEqual([]);
      }
    };
    await check();
    await g.stop();
    await check();
    // The search does find what is stored in clear, such as a key's name.
    expect(await storedContaining(dataDir, 'keeps-only-a-hash')).not.toEqual([]);

    // ...and the keys still work after a restart, so something is really kept.
    g = await startTestGateway({ dataDir });
    for (const { key } of keys) expect((await g.api('GET', '/v1/settings', undefined, { key })).status).toBe(200);
  });

  it('does not accept a key made by another gateway', async () => {
    const otherDir = tempDir();
    const other = await startTestGateway({ dataDir: otherDir });
    try {
      const foreign = (await other.api<{ apiKey: { key: string } }>('POST', '/v1/api-keys', { name: 'elsewhere' })).body.apiKey.key;
      const res = await g.api('GET', '/v1/settings', undefined, { key: foreign });
      expect(res.status, show(res)).toBe(401);
    } finally {
      await other.stop();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
