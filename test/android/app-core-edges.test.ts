import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPhoneCommand } from '../../src/simulator/index.js';
import { closedPort } from '../streams/helpers.js';
import { until, getDevice, pairingCode, testScope } from '../helpers/phones.js';
import { hostBuild, requireJdk, skipAndroid } from './support.js';
import { JvmPhone } from './jvm-phone.js';
import { TcpProxy, selfSignedCertificate } from './proxy.js';


/** The app's core where things go wrong: TLS, unreachable gateways, used codes; and its CLI next to the Node simulator's. */
describe.skipIf(skipAndroid)("the app's core at the edges", () => {
  const t = testScope();

  it('pairs over https and keeps its socket on wss; an untrusted or misnamed certificate is explained', async () => {
    const g = await t.gateway();
    const cert = selfSignedCertificate('DNS:localhost');
    const proxy = t.track(await TcpProxy.start(g.url, { tls: { key: cert.key, cert: cert.cert } }));
    const tokenFile = path.join(t.tempDir(), 'phone.json');
    const phone = t.track(await JvmPhone.start({ url: proxy.url('localhost', 'https'), code: await pairingCode(g), tokenFile, args: ['--trust', cert.pemFile] }));
    const deviceId = (await phone.connected(10_000))['deviceId'] as string;
    expect((await getDevice(g, deviceId)).connected).toBe(true);
    await phone.stop();

    await expect(JvmPhone.start({ url: proxy.url('localhost', 'https'), code: await pairingCode(g) })).rejects.toThrow(
      /TLS with https:\/\/localhost:\d+ failed: .*must be trusted by this phone/,
    );

    // The same credentials through an address the certificate does not name: the socket is refused, and the phone says why.
    const misnamed = t.track(await JvmPhone.start({ url: proxy.url('127.0.0.1', 'https'), tokenFile, args: ['--trust', cert.pemFile] }));
    const waiting = await misnamed.status((s) => s['link'] === 'WAITING_TO_RETRY', 10_000);
    expect(waiting['lastError']).toMatch(/does not name 127\.0\.0\.1/);
  });

  it('explains a gateway that cannot be reached and a code that was already used', async () => {
    const g = await t.gateway();
    const port = await closedPort();
    await expect(JvmPhone.start({ url: `http://127.0.0.1:${port}`, code: 'ABCDEFGHJK' })).rejects.toThrow(/refused the connection\. Is it running/);
    const code = await pairingCode(g);
    t.track(await JvmPhone.start({ url: g.url, code }));
    await expect(JvmPhone.start({ url: g.url, code })).rejects.toThrow(/unknown, already used or expired/);
  });

  it('shares its token file with the Node simulator in both directions', async () => {
    const g = await t.gateway();
    const dir = t.tempDir();
    const nodeFile = path.join(dir, 'node-phone.json');
    const stopNode = new AbortController();
    const lines: string[] = [];
    const nodePhone = runPhoneCommand(['--url', g.url, '--code', await pairingCode(g), '--token-file', nodeFile, '--silence'], {
      out: (l) => lines.push(l),
      signal: stopNode.signal,
    });
    await until(async () => lines, (l) => l.some((x) => x.includes('connected to')));
    stopNode.abort();
    await nodePhone;
    const nodeCreds = JSON.parse(readFileSync(nodeFile, 'utf8')) as { deviceId: string };
    const jvm = t.track(await JvmPhone.start({ url: g.url, tokenFile: nodeFile }));
    expect((await jvm.connected())['deviceId']).toBe(nodeCreds.deviceId);
    await jvm.stop();

    const jvmFile = path.join(dir, 'jvm-phone.json');
    const second = t.track(await JvmPhone.start({ url: g.url, code: await pairingCode(g), tokenFile: jvmFile }));
    const jvmId = (await second.connected())['deviceId'] as string;
    await second.stop();
    expect(statSync(jvmFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(jvmFile, 'utf8'))).toMatchObject({ gatewayUrl: g.url, deviceId: jvmId, deviceToken: expect.any(String) });
    const again: string[] = [];
    const stopAgain = new AbortController();
    const nodeAgain = runPhoneCommand(['--url', g.url, '--token-file', jvmFile, '--silence'], { out: (l) => again.push(l), signal: stopAgain.signal });
    await until(async () => again, (l) => l.some((x) => x.includes(`connected to ${g.url} as ${jvmId}`)));
    stopAgain.abort();
    await nodeAgain;
  });

  it('runs from the command line like npm run phone: pairs, rings, and prints what happens', async () => {
    const g = await t.gateway();
    const build = hostBuild();
    const tokenFile = path.join(t.tempDir(), 'cli.json');
    const child = spawn(requireJdk().java, ['-cp', build.runtime.join(':'), 'dev.voicegateway.jvm.Main',
      '--url', g.url, '--code', await pairingCode(g), '--token-file', tokenFile, '--ring', '+15550123', '--silence']);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    t.defer(() => {
      child.kill('SIGKILL');
    });
    await until(async () => out, (o) => /the gateway named the incoming call call_/.test(o), { timeoutMs: 10_000, what: 'CLI output' });
    expect(out).toMatch(/paired as phone-[0-9a-f]+/);
    expect(out).toMatch(new RegExp(`credentials saved to ${tokenFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(out).toMatch(/connected to http:\/\/127\.0\.0\.1:\d+ as phone-/);
    expect(out).toMatch(/ringing: incoming call from \+15550123/);
    expect(out).not.toMatch(/deviceToken|"token"/);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(out).toMatch(/stopping \(signal\)/);
    expect(existsSync(tokenFile)).toBe(true);

    const usage = spawnSync(requireJdk().java, ['-cp', build.runtime.join(':'), 'dev.voicegateway.jvm.Main', '--url', g.url, '--outcome', 'maybe', '--code', 'X'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/--outcome must be one of answer, busy, no-answer, failed/);
    expect(usage.stderr).toMatch(/Usage: npm run phone:jvm/);
  });
});
