/**
 * `npm run phone:jvm -- <the options of npm run phone>`: the Android app's own core plays a phone
 * against any gateway on this machine's JVM, with a simulated telephony (android/jvm).
 */
import { spawn } from 'node:child_process';
import { compileHost } from './host.js';
import { findJdk, NO_JDK_MESSAGE } from './jdk.js';
import { ensureToolchain } from './toolchain.js';

const jdk = findJdk();
if (!jdk) {
  console.error(`voice-gateway phone:jvm: ${NO_JDK_MESSAGE}`);
  process.exit(1);
}
let classpath: string;
try {
  const tc = await ensureToolchain({ log: (line) => console.error(`voice-gateway phone:jvm: ${line}`) });
  classpath = compileHost(tc, jdk.javac).runtime.join(':');
} catch (err) {
  console.error(`voice-gateway phone:jvm: ${(err as Error).message}`);
  process.exit(1);
}
const child = spawn(jdk.java, ['-cp', classpath, 'dev.voicegateway.jvm.Main', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
