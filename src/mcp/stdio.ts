import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.js';

export const MCP_USAGE = `Usage: voice-gateway mcp

An MCP server on stdin/stdout for AI assistants (Claude Desktop, Cursor, …), using the gateway's API.
Environment:
  VOICE_GATEWAY_URL       the gateway's address (default http://127.0.0.1:8080)
  VOICE_GATEWAY_API_KEY   an API key of the gateway (Console, Settings, API keys)`;

/**
 * `voice-gateway mcp`: stdout carries only the protocol, so everything else goes to stderr. The key
 * is read from the environment, never from arguments (which other users of the machine can see).
 */
export async function runMcpCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(`${MCP_USAGE}\n`);
    return 0;
  }
  const apiKey = env.VOICE_GATEWAY_API_KEY ?? env.HTTP_GATEWAY_API_KEY;
  if (!apiKey) {
    process.stderr.write(`voice-gateway mcp: set VOICE_GATEWAY_API_KEY to an API key of the gateway\n\n${MCP_USAGE}\n`);
    return 2;
  }
  const server = createMcpServer({ baseUrl: env.VOICE_GATEWAY_URL ?? 'http://127.0.0.1:8080', apiKey });
  await server.connect(new StdioServerTransport());
  // Runs until the client closes stdin.
  return undefined;
}
