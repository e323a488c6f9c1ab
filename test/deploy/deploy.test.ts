import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJdk } from '../../scripts/android/jdk.js';
import { apksignerArgs, ensureToolchain } from '../../scripts/android/toolchain.js';
import { API_KEY, IMAGE, ROOT, api, containersConf, freePort, must, pairAndCall, podmanMissing, sh, waitFor200 } from './podman.js';

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
      cleanup.push(() => sh('podman', ['rm', '-f', name, `${name}2`], { env }));
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
});

