import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJdk } from '../../scripts/android/jdk.js';
import { apksignerArgs, ensureToolchain } from '../../scripts/android/toolchain.js';
import { until } from '../helpers/waits.js';
import { API_KEY, IMAGE, ROOT, api, containersConf, freePort, must, pairAndCall, podmanMissing, sh, sweepDeadRuns, waitFor200 } from './podman.js';

/**
 * The three ways README offers besides `npm start`, run for real with podman: the image built from
 * the repository's own Dockerfile, compose.yaml with its PostgreSQL variant, and the systemd unit
 * booted by a real systemd. The base images are registry-free stand-ins (scripts/deploy/stand-in.sh),
 * kept in podman's storage between runs, as are the Dockerfile's cached layers.
 */
const missing = podmanMissing();
if (missing && process.env.CI && process.env.VG_DEPLOY_TESTS !== '0') throw new Error(`deploy tests: ${missing}; in CI they must run`);
if (missing) process.stdout.write(`Deploy tests skipped: ${missing}\n`);

const env: NodeJS.ProcessEnv = {};
const podman = (...args: string[]) => must('podman', args, { env });
const tag = `vgci${process.pid}`;
const volume = `${tag}-data`;
const cleanup: Array<() => Promise<unknown>> = [];

describe.skipIf(missing !== undefined)('deploy', () => {
  beforeAll(async () => {
    env.CONTAINERS_CONF = containersConf();
    cleanup.unshift(async () => rmSync(path.dirname(env.CONTAINERS_CONF!), { recursive: true, force: true }));
    await sweepDeadRuns(env);
    await must(path.join(ROOT, 'scripts/deploy/stand-in.sh'), [], { env });
    // The repository's own Dockerfile, unmodified; --format docker keeps HEALTHCHECK and STOPSIGNAL.
    await podman('build', '-q', '--pull=never', '--format', 'docker', '-t', IMAGE, ROOT);
  }, 600_000);

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }, 120_000);

  describe('the image', () => {
    let port = 0;
    let base = '';
    let callId = '';
    const name = `${tag}-gw`;

    beforeAll(async () => {
      port = await freePort();
      base = `http://127.0.0.1:${port}`;
      cleanup.push(() => sh('podman', ['volume', 'rm', '-f', volume], { env }));
      cleanup.push(() => sh('podman', ['rm', '-f', '-v', name, `${name}2`], { env }));
      await podman('run', '-d', '--name', name, '-p', `127.0.0.1:${port}:8080`, '-v', `${volume}:/data`, '-e', `HTTP_GATEWAY_API_KEY=${API_KEY}`, IMAGE);
      await waitFor200(`${base}/health/ready`);
    }, 120_000);

    it('runs as a non-root user and its HEALTHCHECK passes', async () => {
      expect((await podman('exec', name, 'id', '-u')).trim()).not.toBe('0');
      const health = await sh('podman', ['healthcheck', 'run', name], { env });
      expect(health.code).toBe(0);
      expect(await podman('inspect', name, '--format', '{{.Config.StopSignal}} {{.State.Health.Status}}')).toMatch(/^(SIGTERM|15) healthy$/m);
    }, 30_000);

    it('serves the APK, whole and signed', async () => {
      const res = await fetch(`${base}/app/voice-gateway.apk`);
      expect(res.status).toBe(200);
      const apk = Buffer.from(await res.arrayBuffer());
      const inImage = Number((await podman('exec', name, 'stat', '-c', '%s', '/app/android/build/voice-gateway.apk')).trim());
      expect(apk.length).toBe(inImage);
      expect(Number(res.headers.get('content-length'))).toBe(inImage);
      const jdk = findJdk();
      if (!jdk) throw new Error('apksigner needs a JDK (.ci/run installs one)');
      const tc = await ensureToolchain();
      const dir = mkdtempSync(path.join(tmpdir(), 'vg-apk-'));
      try {
        writeFileSync(path.join(dir, 'voice-gateway.apk'), apk);
        const verify = spawnSync(jdk.java, apksignerArgs(tc, ['verify', '--print-certs', path.join(dir, 'voice-gateway.apk')]), { encoding: 'utf8' });
        expect(verify.stderr).toBe('');
        expect(verify.status).toBe(0);
        expect(verify.stdout).toMatch(/Signer #1 certificate DN: CN=Voice Gateway/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // No key made at build time is left in the image.
      expect((await sh('podman', ['exec', name, 'ls', '/app/android/.keystore'], { env })).code).not.toBe(0);
    }, 120_000);

    it('a simulated phone pairs and places a call through the container', async () => {
      callId = await pairAndCall(base);
    }, 90_000);

    it('stops cleanly on SIGTERM within the grace period, and a new container finds the data on the volume', async () => {
      const started = Date.now();
      await podman('stop', '-t', '10', name);
      expect(Date.now() - started).toBeLessThan(9_000);
      expect((await podman('inspect', name, '--format', '{{.State.ExitCode}}')).trim()).toBe('0');
      expect((await sh('podman', ['logs', name], { env })).stdout).toContain('"signal":"SIGTERM"');

      await podman('run', '-d', '--name', `${name}2`, '-p', `127.0.0.1:${port}:8080`, '-v', `${volume}:/data`, '-e', `HTTP_GATEWAY_API_KEY=${API_KEY}`, IMAGE);
      await waitFor200(`${base}/health/ready`);
      const call = await api<{ call: { id: string; state: string } }>(base, 'GET', `/v1/calls/${callId}`);
      expect(call.status).toBe(200);
      expect(call.body.call.id).toBe(callId);
      await podman('stop', '-t', '10', `${name}2`);
    }, 120_000);

    it('answers --help and refuses an unknown command without starting', async () => {
      const help = await sh('podman', ['run', '--rm', IMAGE, '--help'], { env });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('reset-password');
      const bad = await sh('podman', ['run', '--rm', IMAGE, 'serve'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('unknown command "serve"');
    }, 60_000);
  });

  describe('compose', () => {
    const project = `${tag}c`;
    const compose = (files: string[], args: string[], extra: NodeJS.ProcessEnv = {}) =>
      sh('podman-compose', ['-p', project, ...files.flatMap((f) => ['-f', path.join(ROOT, f)]), ...args], { env: { ...env, ...extra } });
    const withoutKey = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'SECRET_KEY'));

    it('every compose file is read, merged and interpolated (podman-compose --dry-run)', async () => {
      cleanup.push(async () => {
        await sh('podman', ['volume', 'rm', '-f', `${project}_vg-data`, `${project}_vg-postgres`, `${project}_vg-data-a`, `${project}_vg-data-b`], { env });
        await sh('podman', ['network', 'rm', '-f', `${project}_default`], { env });
      });
      const single = await compose(['compose.yaml'], ['--dry-run', 'up', '-d']);
      expect(single.code, single.stderr).toBe(0);
      expect(single.stdout).toMatch(/podman run --name=\S+_gateway_1 .*-v \S+_vg-data:\/data .*voice-gateway:latest/);
      const pg = await compose(['compose.yaml', 'compose.postgres.yaml'], ['--dry-run', 'up', '-d']);
      expect(pg.code, pg.stderr).toBe(0);
      expect(pg.stdout).toContain('DATABASE_URL=postgres://voice:voice-gateway@postgres:5432/voice');
      const cluster = await compose(['compose.cluster.yaml'], ['--dry-run', 'up', '-d'], { SECRET_KEY: 'x'.repeat(44) });
      expect(cluster.code, cluster.stderr).toBe(0);
      for (const service of ['postgres', 'gateway-a', 'gateway-b', 'balancer']) expect(cluster.stdout).toContain(`--network-alias ${service}`);
      expect(cluster.stdout).toContain('NODE_URL=http://gateway-b:8080');
      // Without the shared key the cluster refuses to start rather than give each node its own.
      const keyless = await sh('podman-compose', ['-p', project, '-f', path.join(ROOT, 'compose.cluster.yaml'), '--dry-run', 'up', '-d'], { env: { ...withoutKey, ...env } });
      expect(keyless.code).not.toBe(0);
    }, 60_000);

    it('the PostgreSQL variant starts and a simulated phone calls through it', async () => {
      const port = await freePort();
      const files = ['compose.yaml', 'compose.postgres.yaml'];
      const vars = { VG_PORT: `127.0.0.1:${port}`, HTTP_GATEWAY_API_KEY: API_KEY, POSTGRES_PASSWORD: 'ci-postgres-password' };
      cleanup.push(() => compose(files, ['down', '-v'], vars));
      const up = await compose(files, ['up', '-d'], vars);
      expect(up.code, up.stderr).toBe(0);
      const base = `http://127.0.0.1:${port}`;
      // The gateway may start before PostgreSQL accepts connections; its restart policy retries.
      await waitFor200(`${base}/health/ready`, 90_000).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${(await sh('podman', ['logs', `${project}_gateway_1`], { env })).stderr.slice(-2000)}`);
      });
      const callId = await pairAndCall(base);
      // The call is in PostgreSQL, not in a SQLite file in the gateway's volume.
      const sql = `select count(*) from information_schema.columns where column_name = 'id'`;
      expect(Number(await podman('exec', `${project}_postgres_1`, 'psql', '-U', 'voice', '-d', 'voice', '-Atc', sql))).toBeGreaterThan(0);
      const dump = await podman('exec', `${project}_postgres_1`, 'pg_dump', '-U', 'voice', '-d', 'voice', '--data-only');
      expect(dump).toContain(callId);
      const down = await compose(files, ['down', '-v'], vars);
      expect(down.code, down.stderr).toBe(0);
    }, 180_000);
  });

  describe('the systemd unit', () => {
    const name = `${tag}-sd`;
    // One tag for every run: its layers are then the cache of the next run's build.
    const image = 'localhost/voice-gateway-systemd:ci';
    const exec = (...args: string[]) => podman('exec', name, ...args);

    beforeAll(async () => {
      const ctx = mkdtempSync(path.join(tmpdir(), 'vg-systemd-'));
      try {
        copyFileSync(path.join(ROOT, 'deploy/voice-gateway.service'), path.join(ctx, 'voice-gateway.service'));
        await podman('build', '-q', '--pull=never', '-f', path.join(ROOT, 'test/deploy/Containerfile.systemd'), '-t', image, ctx);
      } finally {
        rmSync(ctx, { recursive: true, force: true });
      }
      cleanup.push(() => sh('podman', ['rm', '-f', '-v', name], { env }));
    }, 300_000);

    it('passes systemd-analyze verify inside the image', async () => {
      const verify = await sh('podman', ['run', '--rm', '--entrypoint', 'systemd-analyze', image, 'verify', '/etc/systemd/system/voice-gateway.service'], { env });
      // verify exits 0 on some errors: what it says on stderr is the verdict.
      expect(verify.stderr.replace(/^time=.*systemd connection.*\n/gm, '')).toBe('');
      expect(verify.code).toBe(0);
    }, 60_000);

    it('boots, serves /health, restarts after SIGKILL, logs to the journal and stops cleanly', async () => {
      const port = await freePort();
      await podman('run', '-d', '--name', name, '--systemd=always', '-p', `127.0.0.1:${port}:8080`, image);
      await waitFor200(`http://127.0.0.1:${port}/health`, 90_000);
      expect((await exec('systemctl', 'is-active', 'voice-gateway.service')).trim()).toBe('active');
      expect((await exec('stat', '-c', '%U %a', '/var/lib/voice-gateway')).trim()).toBe('voice-gateway 700');
      const pid = (await exec('systemctl', 'show', '-p', 'MainPID', '--value', 'voice-gateway.service')).trim();
      expect((await exec('ps', '-o', 'user=', '-p', pid).catch(() => exec('stat', '-c', '%U', `/proc/${pid}`))).trim()).toBe('voice-gateway');

      await exec('systemctl', 'kill', '-s', 'KILL', 'voice-gateway.service');
      const restarts = async (): Promise<string> => (await exec('systemctl', 'show', '-p', 'NRestarts', '--value', 'voice-gateway.service')).trim();
      await until(restarts, (nr) => nr === '1', { timeoutMs: 30_000, intervalMs: 200, what: 'NRestarts 1 after SIGKILL' });
      await waitFor200(`http://127.0.0.1:${port}/health`, 60_000);
      expect((await exec('journalctl', '-u', 'voice-gateway.service', '--no-pager', '-o', 'cat'))).toContain('gateway listening');

      await exec('systemctl', 'stop', 'voice-gateway.service');
      const after = await exec('systemctl', 'show', '-p', 'Result', '-p', 'ExecMainStatus', '-p', 'ActiveState', 'voice-gateway.service');
      expect(after).toContain('Result=success');
      expect(after).toContain('ActiveState=inactive');
      await podman('stop', '-t', '20', name);
    }, 180_000);
  });
});
