import './v8-tuning.js'; // first: a V8 flag that must hold before anything is allocated
import { readHiddenLine, resetPassword } from './commands/reset-password.js';
import { runPhoneCommand } from './simulator/index.js';

/**
 * `voice-gateway [start] [--demo]` runs the gateway; `voice-gateway phone …` runs a phone simulator;
 * `voice-gateway reset-password <email>` makes a one-time link to set a console password;
 * `voice-gateway mcp` runs an MCP server on stdio for AI assistants.
 */
const [command, ...rest] = process.argv.slice(2);
if (command === 'phone') {
  runPhoneCommand(rest).catch((err: unknown) => {
    process.stderr.write(`voice-gateway phone: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
} else if (command === 'mcp') {
  const { runMcpCommand } = await import('./mcp/stdio.js');
  const code = await runMcpCommand(rest, process.env);
  if (code !== undefined) process.exit(code);
} else if (command === 'reset-password') {
  const io = {
    out: (line: string) => void process.stdout.write(`${line}\n`),
    err: (line: string) => void process.stderr.write(`${line}\n`),
    readPassword: (prompt: string) => readHiddenLine(prompt),
  };
  resetPassword(rest, process.env, io).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`voice-gateway reset-password: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
} else {
  await import('./main.js');
}
