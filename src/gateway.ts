import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import { AccountService } from './accounts/index.js';
import { AssistantService } from './assistant/index.js';
import { ApiKeyService } from './auth/index.js';
import type { Config } from './config/index.js';
import { createHttpApp, type HttpServices } from './http/index.js';
import { sessionPrincipalResolver, upgradePrincipal } from './http/session.js';
import { UpgradeRouter } from './http/upgrade.js';
import { GatewayError } from './errors.js';
import { LIMITS } from './limits.js';
import { deliveryPublisher, LiveHub, LiveSocketServer, publishDomainEvents } from './live/index.js';
import { createLogger, type Logger } from './log.js';
import { CallService } from './calls/index.js';
import { routeIncomingCalls } from './incoming/index.js';
import { MediaRouter, MediaSockets } from './media/index.js';
import { OutboundPolicy } from './outbound/index.js';
import { DeviceService, FailureLimiter, PhoneHub } from './phones/index.js';
import { StreamManager } from './streams/index.js';
import { SettingsService } from './settings/index.js';
import { ApiKeysRepo, CallsRepo, DevicesRepo, openStore, SecretBox, SettingsRepo, type Store } from './store/index.js';
import { SessionsRepo, UsersRepo } from './store/index.js';
import { AssistantMessagesRepo } from './store/index.js';
import { WebhookDispatcher } from './webhooks/index.js';

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

/** Timings the contract fixes; tests shorten them. */
export interface GatewayTimings {
  pingIntervalMs: number;
  commandTimeoutMs: number;
  /** How long a live call waits for its phone to reconnect before it is ended. */
  phoneGraceMs: number;
  /** Wait after a phone's hello before ending calls it no longer has (its outbox comes first). */
  reconcileDelayMs: number;
  webhookTimeoutMs: number;
  /** The spec's "about 1 s" before an incoming call is answered into the incoming stream. */
  incomingAutoStreamDelayMs: number;
  /** How long the assistant's model may take to confirm its session and to begin its first answer. */
  assistantResponseTimeoutMs: number;
}

export const DEFAULT_TIMINGS: GatewayTimings = {
  pingIntervalMs: LIMITS.phonePingIntervalMs,
  commandTimeoutMs: LIMITS.commandAckTimeoutMs,
  phoneGraceMs: 60_000,
  reconcileDelayMs: 1_000,
  webhookTimeoutMs: LIMITS.webhookTimeoutMs,
  incomingAutoStreamDelayMs: LIMITS.incomingAutoStreamDelayMs,
  assistantResponseTimeoutMs: 10_000,
};

export interface StartOptions {
  config: Config;
  log?: Logger;
  timings?: Partial<GatewayTimings>;
}

/** The composition root: opens the store, builds the domain services and serves HTTP and WebSockets. */
export async function startGateway({ config, log = createLogger(config.logLevel), timings: overrides }: StartOptions): Promise<Gateway> {
  const timings = { ...DEFAULT_TIMINGS, ...overrides };
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, log });
  const box = SecretBox.open(config.dataDir);
  const settings = await SettingsService.open(new SettingsRepo(store.db), box, config);
  const apiKeys = new ApiKeyService(new ApiKeysRepo(store.db), config.gatewayApiKey);
  const devices = new DeviceService(new DevicesRepo(store.db));
  const hub = new PhoneHub({ devices, log, pingIntervalMs: timings.pingIntervalMs, commandTimeoutMs: timings.commandTimeoutMs });
  const live = new LiveHub();
  const outbound = new OutboundPolicy({ deny: config.outboundDeny, allow: config.outboundAllow });
  const webhooks = new WebhookDispatcher({
    store,
    log,
    onDelivery: deliveryPublisher(live),
    secret: () => settings.webhookSecret(),
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: timings.webhookTimeoutMs,
    outbound,
  });
  const calls = new CallService({
    repo: new CallsRepo(store.db),
    devices,
    hub,
    webhooks,
    defaultWebhookUrl: () => settings.webhookUrl(),
    log,
    phoneGraceMs: timings.phoneGraceMs,
    reconcileDelayMs: timings.reconcileDelayMs,
  });
  const media = new MediaRouter({ calls, hub, log });
  const streams = new StreamManager({ calls, media, log, outbound });
  const assistant = new AssistantService({
    calls,
    media,
    settings,
    messages: new AssistantMessagesRepo(store.db),
    log,
    realtimeUrl: config.assistantRealtimeUrl,
    outbound,
    responseTimeoutMs: timings.assistantResponseTimeoutMs,
    onMessage: (message) => live.publish({ type: 'message', message }),
  });
  calls.setWebhookExtras(async (callId, ended) => {
    const message = await assistant.message(callId);
    const transcript = ended ? await calls.transcript(callId) : [];
    return { ...(message ? { message } : {}), ...(transcript.length > 0 ? { transcript } : {}) };
  });
  const stopIncoming = routeIncomingCalls({
    calls,
    streams,
    settings,
    log,
    autoStreamDelayMs: timings.incomingAutoStreamDelayMs,
    assistant: () => assistant,
  });
  await calls.start();
  await webhooks.start();
  const stopLive = publishDomainEvents(live, { calls, hub, devices, log });
  const accounts = new AccountService({ users: new UsersRepo(store.db), sessions: new SessionsRepo(store.db), log });
  if (config.adminEmail && config.adminPassword) await accounts.ensureOwner(config.adminEmail, config.adminPassword);
  const services: HttpServices = {
    config,
    log,
    settings,
    apiKeys,
    devices,
    hub,
    calls,
    webhooks,
    pairingLimiter: new FailureLimiter(10, 60_000, 'pairing'),
    streams,
    assistant,
    isStreaming: (callId) => media.isStreaming(callId),
    accounts,
    live,
    sessionPrincipal: sessionPrincipalResolver(accounts, () => settings.publicUrl()),
  };
  const liveSockets = new LiveSocketServer({ live, log, pingIntervalMs: timings.pingIntervalMs, authenticate: (req) => upgradePrincipal(services, req) });
  const mediaSockets = new MediaSockets({
    calls,
    media,
    log,
    authenticate: (req) => upgradePrincipal(services, req),
  });

  const app = createHttpApp(services);
  const upgrades = new UpgradeRouter(log);
  upgrades.add('/v1/phone', hub.handleUpgrade);
  upgrades.add('/v1/live', liveSockets.handleUpgrade);
  upgrades.add('/v1/calls/{callId}/media', mediaSockets.handleUpgrade);
  const server = createServer(
    getRequestListener(app.fetch, {
      // A request Node parsed but whose Host or target makes no URL never reaches the app.
      errorHandler: (err) =>
        err instanceof RequestError
          ? Response.json(new GatewayError('VALIDATION_ERROR', 'The request target or Host header is not valid').toBody(), { status: 400 })
          : undefined,
    }),
  );
  server.on('upgrade', upgrades.handle);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({ error: { code: tooLarge ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR', message: tooLarge ? 'The request headers are too large' : 'Malformed HTTP request' } });
    socket.end(`HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });

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
      const grace = setTimeout(() => server.closeAllConnections(), LIMITS.shutdownGraceMs - 1500);
      calls.stop();
      stopLive();
      liveSockets.close();
      stopIncoming();
      streams.close();
      assistant.close();
      mediaSockets.close();
      media.stop();
      await hub.close();
      await stopped;
      clearTimeout(grace);
      await webhooks.stop();
      await store.close();
      log.info('gateway stopped');
    })());

  return { url, port, config, log, store, services, close };
}
