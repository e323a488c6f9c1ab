import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What `voice-gateway <args>` means, decided before anything starts: a typo must be refused with the
 * list of commands, never read as "start the gateway" (which would open a port and a database).
 */
export type CliAction =
  | { kind: 'start'; demo: boolean }
  | { kind: 'phone'; args: string[] }
  | { kind: 'reset-password'; args: string[] }
  | { kind: 'mcp'; args: string[] }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'refuse'; message: string };

export const CLI_USAGE = `Usage: voice-gateway [command] [options]

Commands:
  start [--demo]                      run the gateway (the default when no command is given);
                                      --demo pairs a simulated phone and prints a first call
  phone --url <url> --code <code>     a simulated phone (voice-gateway phone --help for its options)
  reset-password <email> [--password] a one-time link to set a console password (run it on the server)
  mcp                                 an MCP server on stdio for AI assistants (VOICE_GATEWAY_URL, VOICE_GATEWAY_API_KEY)
  help                                show this text

Options:
  -h, --help                          show this text
  -v, --version                       print the version

Configuration is read from the environment (PORT, DATA_DIR, DATABASE_URL, …): see README.md.`;

export function parseCli(argv: readonly string[]): CliAction {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: 'start', demo: false };
  if (first === 'phone') return { kind: 'phone', args: rest };
  if (first === 'reset-password') return { kind: 'reset-password', args: rest };
  if (first === 'mcp') return { kind: 'mcp', args: rest };
  if (first === 'help' || first === '--help' || first === '-h') return { kind: 'help' };
  if (first === '--version' || first === '-v' || first === 'version') return { kind: 'version' };
  // `voice-gateway --demo` is `voice-gateway start --demo`, as `npm run demo` is.
  const startArgs = first === 'start' ? rest : argv;
  for (const arg of startArgs) {
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg !== '--demo') {
      const what = arg.startsWith('-') ? 'option' : 'command';
      return { kind: 'refuse', message: `voice-gateway: unknown ${what} ${JSON.stringify(arg)}` };
    }
  }
  return { kind: 'start', demo: startArgs.includes('--demo') };
}

/** package.json's version (the repository root is two levels above src/commands/). */
export function cliVersion(): string {
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
