import { loadConfig } from '../src/config/index.js';
import { startGateway } from '../src/gateway.js';
import { serveTargetCommands } from './loop-delay.js';

/** The gateway under test, alone in its process so its CPU and memory can be read. */
const config = loadConfig(process.env);
const gateway = await startGateway({ config });
serveTargetCommands(() => gateway.close());
process.send?.({ type: 'ready', url: gateway.url });
