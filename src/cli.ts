import './v8-tuning.js'; // first: a V8 flag that must hold before anything is allocated
import { CLI_USAGE, cliVersion, parseCli } from './commands/dispatch.js';

/**
 * `voice-gateway [start] [--demo]` runs the gateway; `voice-gateway phone …` runs a phone simulator;
 * `voice-gateway reset-password <email>` makes a one-time link to set a console password;
 * `voice-gateway mcp` runs an MCP server on stdio for AI assistants. Anything else is refused with
 * the list of commands (exit 2); see ./commands/dispatch.ts.
 */
const action = parseCli(process.argv.slice(2));
switch (action.kind) {
  case 'help':
    process.stdout.write(`${CLI_USAGE}\n`);
    break;
  case 'version':
    process.stdout.write(`${cliVersion()}\n`);
    break;
  case 'refuse':
    process.stderr.write(`${action.message}\n\n${CLI_USAGE}\n`);
    process.exitCode = 2;
    break;
  case 'phone': {
    const { runPhoneCommand } = await import('./simulator/index.js');
    runPhoneCommand(action.args).catch((err: unknown) => {
      process.stderr.write(`voice-gateway phone: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
    break;
  }
  case 'mcp': {
    const { runMcpCommand } = await import('./mcp/stdio.js');
    const code = await runMcpCommand(action.args, process.env);
    if (code !== undefined) process.exit(code);
    break;
  }
  case 'reset-password': {
    const { readHiddenLine, resetPassword } = await import('./commands/reset-password.js');
    const io = {
      out: (line: string) => void process.stdout.write(`${line}\n`),
      err: (line: string) => void process.stderr.write(`${line}\n`),
      readPassword: (prompt: string) => readHiddenLine(prompt),
    };
    resetPassword(action.args, process.env, io).then(
      (code) => process.exit(code),
      (err: unknown) => {
        process.stderr.write(`voice-gateway reset-password: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
    break;
  }
  case 'start':
    // main.ts reads --demo from process.argv itself.
    await import('./main.js');
    break;
}
