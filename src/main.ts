import './v8-tuning.js'; // first: a V8 flag that must hold before anything is allocated
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config/index.js';
import { startDemo } from './demo/index.js';
import { startGateway } from './gateway.js';
import { LIMITS } from './limits.js';
import { createLogger } from './log.js';

/** In the demo the terminal shows the banner and the webhooks; the log lines go to this file in DATA_DIR. */
const DEMO_LOG_FILE = 'demo.log';

async function main(): Promise<void> {
  const demo = process.argv.includes('--demo');
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`voice-gateway: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logFile = demo ? path.join(config.dataDir, DEMO_LOG_FILE) : undefined;
  // The data directory is the gateway's alone (0700, as the store makes it); so is its log.
  if (logFile) mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const log = logFile ? createLogger(config.logLevel, pino.destination({ dest: logFile, mode: 0o600, sync: true })) : undefined;
  // The demo makes its own owner; elsewhere the operator sees the first run's setup token here.
  const announce = demo ? undefined : (text: string) => void process.stderr.write(text);
  const gateway = await startGateway({ config, ...(log ? { log } : {}), ...(announce ? { announce } : {}) });
  // A promise nobody awaited failed: a bug, logged with its stack. One phone's or receiver's odd input
  // must not take every call down with it (Node's default ends the process).
  process.on('unhandledRejection', (err) => gateway.log.error({ err }, 'unhandled promise rejection (a bug): logged, the gateway goes on'));
  const running = demo ? await startDemo(gateway, undefined, logFile ? { logFile } : {}) : undefined;
  const stop = (signal: string) => {
    gateway.log.info({ signal }, 'signal received');
    const force = setTimeout(() => process.exit(1), LIMITS.shutdownGraceMs).unref();
    Promise.resolve(running?.stop())
      .then(() => gateway.close())
      .then(
        () => {
          clearTimeout(force);
          process.exit(0);
        },
        (err: unknown) => {
          gateway.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`voice-gateway: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
