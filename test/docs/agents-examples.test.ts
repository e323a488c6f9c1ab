import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { testScope } from '../helpers/phones.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8');
const scope = testScope();

/** The fenced blocks of docs/agents.md marked `example`, by language. */
function example(lang: string): string {
  const match = new RegExp('```' + lang + ' example\\n([\\s\\S]*?)```').exec(PAGE);
  if (!match?.[1]) throw new Error(`docs/agents.md has no \`\`\`${lang} example block`);
  return match[1];
}

// Each example runs in a child process compiled by tsx: seconds on a loaded machine.
describe('the examples of docs/agents.md', { timeout: 60_000 }, () => {
  it('the TypeScript example places a call, hears it, hangs up and lists the log', async () => {
    const g = await scope.gateway();
    await scope.phone(g, { audio: { kind: 'tone', frequency: 440, amplitude: 0.3 } });
    // Written outside the repository (.mts: the example's top-level await needs ESM there), the package name pointed at the workspace's source.
    const file = path.join(scope.tempDir(), 'example.mts');
    writeFileSync(file, example('ts').replace("'@voice-gateway/client'", `'${path.join(ROOT, 'clients/typescript/src/index.ts')}'`));
    const { stdout } = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/tsx'), [file], {
      env: { ...process.env, VOICE_GATEWAY_URL: g.url, VOICE_GATEWAY_API_KEY: TEST_API_KEY },
      timeout: 45_000,
    });
    const lines = stdout.trim().split('\n');
    const callId = /^placed (call_\w+)$/.exec(lines[0] ?? '')?.[1];
    expect(callId, stdout).toBeDefined();
    expect(lines.slice(1)).toEqual([`${callId} ended`]);
  });

  it('the MCP configuration starts a server an MCP client can use', async () => {
    const g = await scope.gateway();
    const phone = await scope.phone(g);
    const config = JSON.parse(example('json')) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> };
    const server = config.mcpServers['voice-gateway']!;
    expect(server.command).toBe('node');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: server.args.map((a) => a.replace('/path/to/voice-gateway', ROOT)),
      env: { ...server.env, PATH: process.env.PATH ?? '', VOICE_GATEWAY_URL: g.url, VOICE_GATEWAY_API_KEY: TEST_API_KEY },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'docs-example', version: '1.0.0' });
    await client.connect(transport);
    scope.defer(() => client.close());
    const res = await client.callTool({ name: 'list_phones', arguments: {} });
    const text = (res.content as Array<{ text: string }>)[0]!.text;
    expect(JSON.parse(text)).toEqual({ phones: [expect.objectContaining({ id: phone.deviceId, connected: true })] });
  });
});
