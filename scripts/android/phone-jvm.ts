/**
 * `npm run phone:jvm -- <the options of npm run phone>`: the Android app's own core plays a phone
 * against any gateway on this machine's JVM, with a simulated telephony (android/jvm).
 */
import { spawn } from 'node:child_process';
import { compileHost, javaMissing } from './host.js';

const missing = javaMissing();
if (missing) {
  console.error(`voice-gateway phone:jvm: ${missing}`);
  process.exit(1);
}
let classpath: string;
try {
  classpath = compileHost().runtime.join(':');
} catch (err) {
  console.error(`voice-gateway phone:jvm: ${(err as Error).message}`);
  process.exit(1);
}
const child = spawn('java', ['-cp', classpath, 'dev.voicegateway.jvm.Main', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
