import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PHONE_USAGE, parseSims, runPhoneCommand } from './cli.js';
import { FakeGateway } from '../../test/fakes/fake-gateway.js';
import { Recorded } from '../../test/helpers/waits.js';

let gw: FakeGateway;
let dir: string;

beforeEach(async () => {
  gw = await FakeGateway.start();
  dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
});

afterEach(async () => {
  await gw.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the command; `until(re)` resolves when a printed line matches. */
function run(argv: string[]) {
  const printed = new Recorded<string>('voice-gateway phone output', (line) => line);
  const ac = new AbortController();
  const done = runPhoneCommand(argv, { out: (line) => printed.add(line), signal: ac.signal, env: {} });
  const until = async (re: RegExp): Promise<void> => {
    await printed.next((line) => re.test(line), { timeoutMs: 3000, what: `line matching ${re}` });
  };
  return { lines: printed.items, done, until, stop: () => ac.abort() };
}

describe('voice-gateway phone', () => {
  it('pairs, saves the token, connects, rings and prints what happens', async () => {
    const tokenFile = join(dir, 'creds', 'phone.json');
    const cli = run(['phone', '--url', gw.httpUrl, '--code', 'CODE-1234', '--token-file', tokenFile, '--name', 'Bench', '--silence', '--ring', '+4930111']);
    await cli.until(/the gateway named the incoming call call-in-1/);
    expect(gw.pairRequests[0]?.body).toMatchObject({ code: 'CODE-1234', name: 'Bench' });
    const saved = JSON.parse(readFileSync(tokenFile, 'utf8')) as Record<string, string>;
    expect(saved).toMatchObject({ gatewayUrl: gw.httpUrl, deviceId: expect.stringMatching(/^phone-/) as unknown });
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

    await gw.command('answer', 'call-in-1');
    await cli.until(/call call-in-1 incoming \+4930111: active \(call\.active\)/);
    await gw.command('dtmf', 'call-in-1', { digits: '42' });
    await cli.until(/dtmf 42 on call call-in-1/);
    cli.stop();
    await cli.done;
    const text = cli.lines.join('\n');
    expect(text).toMatch(/paired as phone-/);
    expect(text).toMatch(/connected to http:\/\/127\.0\.0\.1:\d+ as phone-/);
    expect(text).toMatch(/command answer call=call-in-1/);
    expect(text).toMatch(/ stopping\n.*disconnected \(code 1000\)$/);
  });

  it('reuses saved credentials and reports dial outcomes', async () => {
    const tokenFile = join(dir, 'phone.json');
    writeFileSync(tokenFile, JSON.stringify(gw.issueDevice()));
    const cli = run(['--url', gw.httpUrl, '--token-file', tokenFile, '--outcome', 'busy', '--ring-ms', '5']);
    await cli.until(/connected to/);
    await gw.command('dial', 'call-5', { to: '+1555' });
    await cli.until(/call call-5 outgoing \+1555: ended \(call\.disconnected \{"cause":"busy"\}\)/);
    expect(await gw.command('answer', 'call-5')).toMatchObject({ ok: false });
    await cli.until(/refused: NO_CALL/);
    cli.stop();
    await cli.done;
    expect(gw.pairRequests).toHaveLength(0);
  });

  it('stops when the gateway revokes the phone', async () => {
    const cli = run(['--url', gw.httpUrl, '--code', 'CODE-1234']);
    await cli.until(/connected to/);
    gw.current.ws.close(4001, 'revoked');
    await cli.done;
    expect(cli.lines.at(-1)).toMatch(/revoked this phone; stopping/);
  });

  it('explains its usage', async () => {
    const lines: string[] = [];
    await runPhoneCommand(['--help'], { out: (l) => lines.push(l) });
    expect(lines).toEqual([PHONE_USAGE]);
    await expect(runPhoneCommand(['--code', 'x'], { env: {} })).rejects.toThrow(/--url is required/);
    await expect(runPhoneCommand(['--url', gw.httpUrl], { env: {} })).rejects.toThrow(/no credentials/);
    await expect(runPhoneCommand(['--url', gw.httpUrl, '--code', 'x', '--outcome', 'maybe'])).rejects.toThrow(/--outcome must be one of/);
    await expect(runPhoneCommand(['--url', gw.httpUrl, '--tone', '440', '--silence'])).rejects.toThrow(/one of --tone/);
    await expect(runPhoneCommand(['--url', gw.httpUrl, '--bogus'])).rejects.toThrow(/Unknown option '--bogus'/);
    await expect(runPhoneCommand(['--url', gw.httpUrl, '--code', 'WRONG'], { env: {} })).rejects.toThrow(/HTTP 401 UNAUTHORIZED/);
  });

  it('reads a SIM list: slots in order, the default, an unusable SIM and an empty slot', async () => {
    expect(parseSims('Telekom*, ,Vodafone!')).toEqual([
      { slot: 0, carrier: 'Telekom', defaultForCalls: true, usable: true },
      { slot: 2, carrier: 'Vodafone', defaultForCalls: false, usable: false },
    ]);
    expect(() => parseSims('A!*')).toThrow(/cannot read/);
    await expect(runPhoneCommand(['--url', gw.httpUrl, '--code', 'x', '--sims', Array(9).fill('A').join(',')])).rejects.toThrow(/at most 8/);
  });
});
