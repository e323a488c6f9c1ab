import { once } from 'node:events';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { describe, it, type TestContext } from 'vitest';
import { startTestGateway, TEST_API_KEY } from '../helpers/gateway.js';
import { connectError } from '../streams/helpers.js';
import { readResponse, ServerProcess, tempDir } from './support.js';

const SHUTDOWN_LIMIT_MS = 5_000;

// Each test spawns a server of its own, so they run side by side.
describe.concurrent('graceful shutdown of the real server', () => {
  /** A server on a fresh data directory, listening and healthy; it is killed and its directory removed when the test ends. */
  const spawnServer = async (onTestFinished: TestContext['onTestFinished']): Promise<{ server: ServerProcess; url: string; dataDir: string }> => {
    const dataDir = tempDir();
    // With an owner from the start, nothing is meant for standard error (no first run's setup token).
    const owner = { ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'correct horse battery' };
    const server = new ServerProcess({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', HTTP_GATEWAY_API_KEY: TEST_API_KEY, ...owner });
    onTestFinished(async () => {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const url = await server.listening();
    const health = await fetch(`${url}/health`);
    if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
    return { server, url, dataDir };
  };

  it.for(['SIGTERM', 'SIGINT'] as const)('exits with code 0 within 5 s of %s', async (signal, { expect, onTestFinished }) => {
    const { server, url } = await spawnServer(onTestFinished);
    const sentAt = Date.now();
    server.child.kill(signal);
    const { code, signal: killedBy } = await server.exited;
    const took = Date.now() - sentAt;
    expect({ code, killedBy }, server.stderr).toEqual({ code: 0, killedBy: null });
    expect(took).toBeLessThan(SHUTDOWN_LIMIT_MS);
    expect(server.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['gateway shutting down', 'gateway stopped']));
    expect(server.stderr).toBe('');
    expect((await connectError(url))?.code).toBe('ECONNREFUSED');
  });

  it('stops accepting connections, finishes the request in flight, then closes the database', async ({ expect, onTestFinished }) => {
    const { server, url, dataDir } = await spawnServer(onTestFinished);

    // A PUT whose body is still on its way when the signal arrives. `Expect: 100-continue` makes the
    // server say when it has taken the request, so the signal cannot overtake it.
    const req = http.request(`${url}/v1/settings`, {
      method: 'PUT',
      agent: false,
      headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json', expect: '100-continue' },
    });
    const response = once(req, 'response') as Promise<[http.IncomingMessage]>;
    req.flushHeaders();
    await once(req, 'continue');
    req.write('{"publicUrl":');

    const sentAt = Date.now();
    server.child.kill('SIGTERM');
    await server.waitForLog('gateway shutting down');
    expect((await connectError(url))?.code, 'a new connection while shutting down').toBe('ECONNREFUSED');
    expect(server.lines.map((l) => l.msg)).not.toContain('gateway stopped');

    req.end('"https://in-flight.example"}');
    const res = await readResponse((await response)[0]);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ settings: { publicUrl: 'https://in-flight.example' } });

    const { code } = await server.exited;
    expect(code, server.stderr).toBe(0);
    expect(Date.now() - sentAt).toBeLessThan(SHUTDOWN_LIMIT_MS);

    // What the last request wrote is in the database the next start opens.
    const next = await startTestGateway({ dataDir });
    try {
      const settings = await next.api('GET', '/v1/settings');
      expect(settings.body).toMatchObject({ settings: { publicUrl: 'https://in-flight.example' } });
    } finally {
      await next.stop();
    }
  });

  it('stops without waiting when clients hold idle keep-alive connections', async ({ expect, onTestFinished }) => {
    const { server, url } = await spawnServer(onTestFinished);
    const agent = new http.Agent({ keepAlive: true });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(`${url}/health`, { agent }, resolve).on('error', reject));
        await readResponse(res);
      }
      expect(Object.values(agent.freeSockets).flat().length).toBeGreaterThan(0);
      const sentAt = Date.now();
      server.child.kill('SIGTERM');
      const { code } = await server.exited;
      expect(code).toBe(0);
      expect(Date.now() - sentAt, 'idle connections are closed at once, not after the grace period').toBeLessThan(3_000);
    } finally {
      agent.destroy();
    }
  });
});
