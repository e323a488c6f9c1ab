import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCli } from '../../src/commands/dispatch.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
// A data directory of its own: a gateway started by mistake would show up in it.
const dataDir = mkdtempSync(path.join(tmpdir(), 'vg-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `npx voice-gateway <args>` as a user runs it (bin/voice-gateway.js), with PORT 0 so a stray start cannot collide. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/voice-gateway.js'), ...args], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A gateway started by accident would never exit: the test's timeout catches it, and this kills it.
    const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the voice-gateway command', () => {
  it('--help lists the commands and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['start', 'phone', 'reset-password', '--version']) expect(r.stdout).toContain(command);
  });

  it('--version prints the version of package.json', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it.each([['serve'], ['--port', '9000'], ['start', '--deom']])('refuses %s with the list of commands, without starting a gateway', async (...args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^voice-gateway: unknown (command|option) "/);
    expect(r.stderr).toContain('reset-password <email>');
    expect(r.stdout).toBe('');
    // No gateway ran: it would have made its database and setup token in DATA_DIR.
    expect(() => readFileSync(path.join(dataDir, 'setup-token'))).toThrow();
  });

  it('reads no arguments, start and --demo as starting the gateway', () => {
    expect(parseCli([])).toEqual({ kind: 'start', demo: false });
    expect(parseCli(['start'])).toEqual({ kind: 'start', demo: false });
    expect(parseCli(['--demo'])).toEqual({ kind: 'start', demo: true });
    expect(parseCli(['start', '--demo'])).toEqual({ kind: 'start', demo: true });
    expect(parseCli(['phone', '--url', 'x'])).toEqual({ kind: 'phone', args: ['--url', 'x'] });
  });
});
