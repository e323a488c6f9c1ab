import { runPhoneCommand } from './simulator/index.js';

/** `voice-gateway [start] [--demo]` runs the gateway; `voice-gateway phone …` runs a phone simulator. */
const [command, ...rest] = process.argv.slice(2);
if (command === 'phone') {
  runPhoneCommand(rest).catch((err: unknown) => {
    process.stderr.write(`voice-gateway phone: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
} else {
  await import('./main.js');
}
