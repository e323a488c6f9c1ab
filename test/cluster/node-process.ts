import '../../src/v8-tuning.js'; // as src/main.ts: a V8 flag that must hold before anything is allocated
import { loadConfig } from '../../src/config/index.js';
import { startGateway, type GatewayTimings } from '../../src/gateway.js';

/*
 * One node of a test cluster, alone in its process so that a test can kill it with SIGKILL. The
 * environment configures it as any node; VG_TEST_TIMINGS (JSON) shortens the contract's timings as
 * the in-process tests do. It reports its address and node id over IPC, and stops on `stop`.
 */
try {
  const config = loadConfig(process.env);
  const timings = JSON.parse(process.env.VG_TEST_TIMINGS ?? '{}') as Partial<GatewayTimings>;
  // The first run's setup token goes to standard error, as src/main.ts shows it.
  const gateway = await startGateway({ config, timings, announce: (text) => void process.stderr.write(text) });
  process.on('message', (message: { type?: string }) => {
    if (message.type !== 'stop') return;
    void gateway.close().then(() => process.exit(0));
  });
  process.send?.({ type: 'ready', url: gateway.url, nodeId: gateway.services.routing?.nodeId ?? null });
} catch (err) {
  process.send?.({ type: 'failed', message: err instanceof Error ? err.message : String(err) }, () => process.exit(1));
}
