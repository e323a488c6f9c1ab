import { ConfigError, loadConfig, type Config } from './config/index.js';
import { startDemo } from './demo/index.js';
import { startGateway } from './gateway.js';
import { LIMITS } from './limits.js';

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
  const gateway = await startGateway({ config });
  const running = demo ? await startDemo(gateway) : undefined;
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
