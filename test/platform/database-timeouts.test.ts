import { describe, expect, it } from 'vitest';
import { TcpProxy } from '../android/proxy.js';
import { startTestGateway } from '../helpers/gateway.js';
import { databaseFor, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { show, testScope } from '../helpers/phones.js';

const t = testScope();

/**
 * A PostgreSQL server that stops answering (frozen, or a network that drops its packets) is played
 * by a TCP proxy in front of the test server that stops passing the server's bytes on.
 */
describe.skipIf(!TEST_DATABASE_URL)('a PostgreSQL server that stops answering', () => {
  it('makes requests answer 503 SERVICE_UNAVAILABLE within DATABASE_TIMEOUT, /health/ready too, and recovers', async () => {
    const dataDir = t.tempDir();
    const database = await databaseFor(dataDir);
    t.defer(() => database.drop());
    const url = new URL(database.url);
    const proxy = t.track(await TcpProxy.start(`http://${url.hostname}:${url.port}`));
    url.host = `127.0.0.1:${proxy.port}`;
    const g = await startTestGateway({ dataDir, env: { DATABASE_URL: url.toString(), DATABASE_TIMEOUT: '300ms' } });
    t.defer(() => g.stop());

    expect((await g.api('GET', '/v1/calls')).status).toBe(200);
    expect((await g.api('GET', '/health/ready', undefined, { key: null })).body).toEqual({ ok: true, service: 'voice-gateway', database: 'ok' });

    proxy.holdDownstream(true);
    // A query on a pooled connection, then (that one dropped) a new connection: both give up in time.
    for (let i = 0; i < 2; i++) {
      const res = await g.api('GET', '/v1/calls');
      expect(res.status, show(res)).toBe(503);
      expect(res.body.error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('database') });
      expect(res.headers.get('retry-after')).toBe('5');
    }
    const ready = await g.api('GET', '/health/ready', undefined, { key: null });
    expect(ready.status, show(ready)).toBe(503);
    expect(ready.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // Liveness does not ask the database: the process is fine.
    expect((await g.api('GET', '/health', undefined, { key: null })).status).toBe(200);

    proxy.holdDownstream(false);
    const back = await g.api('GET', '/v1/calls');
    expect(back.status, show(back)).toBe(200);
    expect((await g.api('GET', '/health/ready', undefined, { key: null })).status).toBe(200);
  });
});
