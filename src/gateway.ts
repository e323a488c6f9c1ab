import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { ApiKeyService } from './auth/index.js';
import type { Config } from './config/index.js';
import { createHttpApp, type HttpServices } from './http/index.js';
import { UpgradeRouter } from './http/upgrade.js';
import { LIMITS } from './limits.js';
import { createLogger, type Logger } from './log.js';
import { SettingsService } from './settings/index.js';
import { ApiKeysRepo, openStore, SecretBox, SettingsRepo, type Store } from './store/index.js';

export interface Gateway {
  /** http://host:port as bound (port 0 resolves to the real port). */
  url: string;
  port: number;
  config: Config;
  log: Logger;
  store: Store;
  services: HttpServices;
  close(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  log?: Logger;
}

/** The composition root: opens the store, builds the domain services and serves HTTP and WebSockets. */
export async function startGateway({ config, log = createLogger(config.logLevel) }: StartOptions): Promise<Gateway> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, log });
  const box = SecretBox.open(config.dataDir);
  const settings = await SettingsService.open(new SettingsRepo(store.db), box, config);
  const apiKeys = new ApiKeyService(new ApiKeysRepo(store.db), config.gatewayApiKey);
  const services: HttpServices = { config, log, settings, apiKeys };

  const app = createHttpApp(services);
  const upgrades = new UpgradeRouter(log);
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.on('upgrade', upgrades.handle);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.info({ url }, 'gateway listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      log.info('gateway shutting down');
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), LIMITS.shutdownGraceMs - 500);
      await stopped;
      clearTimeout(grace);
      await store.close();
      log.info('gateway stopped');
    })());

  return { url, port, config, log, store, services, close };
}
