import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccountService, SetupToken } from './accounts/index.js';
import { AssistantService } from './assistant/index.js';
import { AudioDrops } from './audio/index.js';
import { ApiKeyService } from './auth/index.js';
import type { Config } from './config/index.js';
import { APP_APK_PATH, createHttpApp, createNodeServer, type HttpServices } from './http/index.js';
import { proxyToPhoneNode } from './http/forward.js';
import { sessionPrincipalResolver, upgradePrincipal } from './http/session.js';
import { UpgradeRouter } from './http/upgrade.js';
import { LIMITS } from './limits.js';
import { deliveryPublisher, LiveHub, LiveSocketServer, publishDomainEvents, type LiveMessage } from './live/index.js';
import { createLogger, type Logger } from './log.js';
import { CallService, CallStateCounts, runHere } from './calls/index.js';
import { Cluster } from './cluster/index.js';
import { routeIncomingCalls } from './incoming/index.js';
import { CallAttachments, MediaRouter, MediaSockets } from './media/index.js';
import { GatewayMetrics } from './metrics/index.js';
import { OutboundPolicy } from './outbound/index.js';
import { DeviceService, MemoryFailureLimiter, PhoneHub, PhoneSockets, THIS_GATEWAY, type PhoneDirectory } from './phones/index.js';
import { StreamManager } from './streams/index.js';
import { SettingsService } from './settings/index.js';
import { ApiKeysRepo, CallsRepo, DevicesRepo, DEFAULT_DATABASE_TIMEOUT_MS, openStore, SecretBox, SettingsRepo, type Store } from './store/index.js';
import { PasswordResetsRepo, SessionsRepo, UsersRepo } from './store/index.js';
import { AssistantMessagesRepo, AssistantTasksRepo } from './store/index.js';
import { ONE_GATEWAY, WebhookDispatcher } from './webhooks/index.js';
import { announceFirstRun } from './gateway/first-run.js';
import { DEFAULT_TIMINGS, type GatewayTimings } from './gateway/timings.js';

export { DEFAULT_TIMINGS, type GatewayTimings } from './gateway/timings.js';

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
  timings?: Partial<GatewayTimings>;
  /** The APK served at /app/voice-gateway.apk; android/build/voice-gateway.apk by default. */
  appApkPath?: string;
  /**
   * Where words for the operator's eyes only go, outside the structured log: the first run's setup
   * token. The server passes its standard error; without it, the token is only in its file.
   */
  announce?: (text: string) => void;
}

/** Everything a gateway is made of, built before anything is connected. */
interface Parts {
  config: Config;
  log: Logger;
  timings: GatewayTimings;
  store: Store;
  settings: SettingsService;
  /** On PostgreSQL the gateway is a node of a cluster, be it the only one (docs/architecture.md, "The cluster"). */
  cluster: Cluster | undefined;
  directory: PhoneDirectory;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  hub: PhoneHub;
  live: LiveHub;
  webhooks: WebhookDispatcher;
  callsRepo: CallsRepo;
  calls: CallService;
  callStates: CallStateCounts;
  media: MediaRouter;
  /** What attaches to a call's audio (streams, the assistant, media sockets), by call. */
  attachments: CallAttachments;
  streams: StreamManager;
  assistant: AssistantService;
  accounts: AccountService;
}

/**
 * The composition root: builds every part (`build`), connects them in one block (`wire`, synchronous:
 * every subscription is made before any phone, request or timer can change a call), then starts what
 * runs on its own and serves HTTP and WebSockets.
 */
export async function startGateway({ config, log = createLogger(config.logLevel), timings: overrides, appApkPath = APP_APK_PATH, announce }: StartOptions): Promise<Gateway> {
  const timings = { ...DEFAULT_TIMINGS, ...overrides };
  const { store, settings, box } = await openStoreAndSettings(config, log);
  const parts = await build({ config, log, timings, store, settings, box });
  const unwire = wire(parts);
  const { cluster, calls, webhooks, accounts } = parts;
  await cluster?.listen();
  await calls.start();
  // A node of a cluster claims webhook jobs once it has joined (its claims are judged by its heartbeat).
  if (!cluster) await webhooks.start();
  const { adminEmail, adminPassword } = config;
  if (adminEmail && adminPassword) await store.exclusively(() => accounts.ensureOwner(adminEmail, adminPassword));
  const firstRun = await store.exclusively(() => accounts.prepareFirstRun());
  const served = await serve(parts, appApkPath);
  if (cluster) {
    await cluster.join(config.nodeUrl ?? `http://${loopbackOf(config.host)}:${served.port}`);
    if (firstRun) await cluster.publishSetupToken(firstRun.token);
    await webhooks.start();
    const problem = await cluster.checkAddress();
    if (problem) log.error(problem);
  }
  if (firstRun) announceFirstRun(log, served.url, firstRun, announce);
  return { url: served.url, port: served.port, config, log, store, services: served.services, close: closer(parts, served, unwire) };
}

async function openStoreAndSettings(config: Config, log: Logger): Promise<{ store: Store; settings: SettingsService; box: SecretBox }> {
  const box = SecretBox.open({ dataDir: config.dataDir, key: config.secretKey, previous: config.secretKeyPrevious });
  for (const warning of box.warnings) log.warn(warning);
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs, log });
  const { settings, resealed } = await store.exclusively(() => SettingsService.open(new SettingsRepo(store.db), box, config)).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  if (box.hasPrevious) {
    log.info({ resealed }, resealed > 0 ? 'stored secrets sealed again with the new key: SECRET_KEY_PREVIOUS can be removed' : 'no stored secret needs SECRET_KEY_PREVIOUS: it can be removed');
  }
  return { store, settings, box };
}

function buildCluster(config: Config, log: Logger, timings: GatewayTimings, store: Store, box: SecretBox): Cluster | undefined {
  if (store.dialect !== 'postgres' || !store.url) return undefined;
  return new Cluster({
    db: store.db,
    connectionString: store.url,
    databaseTimeoutMs: config.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS,
    box,
    log,
    timings: {
      heartbeatMs: timings.clusterHeartbeatMs,
      leaseMs: timings.clusterLeaseMs,
      claimPollMs: timings.clusterClaimPollMs,
      settingsRefreshMs: timings.clusterSettingsRefreshMs,
    },
  });
}

/** Builds every part; nothing is connected to anything else yet but through constructors' arguments. */
async function build(base: { config: Config; log: Logger; timings: GatewayTimings; store: Store; settings: SettingsService; box: SecretBox }): Promise<Parts> {
  const { config, log, timings, store, settings, box } = base;
  const cluster = buildCluster(config, log, timings, store, box);
  const directory = cluster?.phones ?? THIS_GATEWAY;
  const sockets = new PhoneSockets();
  const devices = new DeviceService(new DevicesRepo(store.db), sockets, directory);
  const audioDrops = new AudioDrops();
  const ping = { pingIntervalMs: timings.pingIntervalMs, pongTimeoutMs: timings.pongTimeoutMs };
  const hub = new PhoneHub({ devices, sockets, directory, log, ping, commandTimeoutMs: timings.commandTimeoutMs, drops: audioDrops });
  const live = new LiveHub(cluster?.liveRelay);
  const outbound = new OutboundPolicy({ deny: config.outboundDeny, allow: config.outboundAllow });
  const webhooks = new WebhookDispatcher({
    store,
    log,
    onDelivery: deliveryPublisher(live),
    secret: () => settings.webhookSecret(),
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: timings.webhookTimeoutMs,
    outbound,
    ownership: cluster?.jobs ?? ONE_GATEWAY,
  });
  const callsRepo = new CallsRepo(store.db);
  const calls = new CallService({
    repo: callsRepo,
    devices,
    hub,
    webhooks,
    defaultWebhookUrl: () => settings.webhookUrl(),
    log,
    phoneGraceMs: timings.phoneGraceMs,
    reconcileDelayMs: timings.reconcileDelayMs,
    directory,
    exclusive: cluster ? store.exclusively : runHere,
  });
  const audioPing = { pingIntervalMs: timings.audioPingIntervalMs, pongTimeoutMs: timings.pongTimeoutMs };
  const media = new MediaRouter({ calls, hub, log, drops: audioDrops });
  const attachments = new CallAttachments({ calls, media, log });
  const streams = new StreamManager({ calls, attachments, log, ping: audioPing, outbound, secret: () => settings.webhookSecret() });
  const assistant = new AssistantService({
    calls,
    attachments,
    settings,
    messages: new AssistantMessagesRepo(store.db),
    tasks: new AssistantTasksRepo(store.db),
    log,
    realtimeUrl: config.assistantRealtimeUrl,
    outbound,
    responseTimeoutMs: timings.assistantResponseTimeoutMs,
    ping: audioPing,
    onMessage: (message) => live.publish({ type: 'message', message }),
  });
  const apiKeys = new ApiKeyService(new ApiKeysRepo(store.db), config.gatewayApiKey);
  const accounts = buildAccounts({ config, log, store, cluster, apiKeys });
  const callStates = await CallStateCounts.open(callsRepo);
  return { ...base, cluster, directory, apiKeys, devices, hub, live, webhooks, callsRepo, calls, callStates, media, attachments, streams, assistant, accounts };
}

function buildAccounts({ config, log, store, cluster, apiKeys }: { config: Config; log: Logger; store: Store; cluster: Cluster | undefined; apiKeys: ApiKeyService }): AccountService {
  return new AccountService({
    users: new UsersRepo(store.db),
    sessions: new SessionsRepo(store.db),
    resets: new PasswordResetsRepo(store.db),
    log,
    setupToken: new SetupToken(config.dataDir),
    isApiKey: async (key) => (await apiKeys.verify(key)) !== null,
    limiters: cluster?.limiters ?? MemoryFailureLimiter.factory,
    isOtherSetupToken: cluster ? (token) => cluster.isSetupToken(token) : undefined,
    exclusively: cluster ? store.exclusively : undefined,
  });
}

/**
 * The one place the parts are connected: who hears what. Synchronous, so every subscription exists
 * before the first phone, request or timer; the order of the `change` listeners is the order here
 * (the media router, what attaches to calls' audio, the counts, the other nodes, the consoles).
 * Returns what undoes it at shutdown.
 */
function wire(parts: Parts): () => void {
  const { hub, calls, media, attachments, assistant, streams, settings, live, callStates, devices, directory, cluster, webhooks, log, timings } = parts;
  // The phone's messages go to the call domain's applier; the call domain commands the phone through the hub.
  hub.setSink(calls.phoneEvents);
  // The router first: a call's audio exists before anything attached to the call hears of it.
  const stopMedia = media.subscribe();
  const stopAttachments = attachments.subscribe();
  calls.on('dtmf', (callId, digits) => streams.dtmf(callId, digits));
  webhooks.enrichBodies(async (callId, ended) => {
    const message = await assistant.message(callId);
    const transcript = ended ? await calls.transcript(callId) : [];
    // The event that ends a call with a task carries its outcome (or the clear "no outcome").
    const task = ended ? await assistant.task(callId, true) : undefined;
    return { ...(message ? { message } : {}), ...(transcript.length > 0 ? { transcript } : {}), ...task };
  });
  const stopIncoming = routeIncomingCalls({ calls, streams, settings, log, autoStreamDelayMs: timings.incomingAutoStreamDelayMs, assistant });
  calls.on('change', ({ call, previousState }) => callStates.apply(previousState, call.state));
  if (cluster) wireCluster(cluster, parts);
  const stopLive = publishDomainEvents(live, { calls, hub, devices, directory, log });
  return () => {
    stopIncoming();
    stopLive();
    stopAttachments();
    stopMedia();
  };
}

/** What the other nodes tell this one, and what it tells them (docs/cluster.md). */
function wireCluster(cluster: Cluster, { hub, calls, settings, live, callStates, webhooks, log }: Parts): void {
  calls.on('change', ({ call, previousState }) => cluster.callStateChanged(previousState, call.state));
  cluster.on('callState', (previousState, state) => callStates.apply(previousState, state));
  cluster.on('live', (text) => live.deliver(JSON.parse(text) as LiveMessage, text));
  settings.onSaved(() => cluster.settingsSaved());
  cluster.on('settings', (why) => {
    const problem = why === 'changed' ? 'could not read the settings another node changed' : 'could not read the settings again';
    settings.reload().catch((err: unknown) => log.warn({ err }, problem));
  });
  cluster.on('resync', () => {
    settings.reload().catch((err: unknown) => log.warn({ err }, 'could not read the settings again'));
    callStates.recount().catch((err: unknown) => log.warn({ err }, 'could not count the calls again'));
  });
  cluster.on('rejoined', () => webhooks.reclaim().catch((err: unknown) => log.error({ err }, 'could not claim the webhook jobs again')));
  // The phone opened a newer socket on another node: an older one here closes, and its calls are served there.
  cluster.phones.on('moved', (deviceId, connectionId) => {
    hub.replacedElsewhere(deviceId, connectionId);
    calls.releaseDevice(deviceId).catch((err: unknown) => log.warn({ err, deviceId }, 'could not let go of a phone that moved'));
  });
  // This node took a dead node's phones off the map: their calls get the grace period here.
  cluster.phones.on('lost', (deviceId) => hub.lostWithItsNode(deviceId));
}

interface Served {
  url: string;
  port: number;
  services: HttpServices;
  server: ReturnType<typeof createNodeServer>;
  liveSockets: LiveSocketServer;
  mediaSockets: MediaSockets;
}

/** The HTTP edge over the parts: REST, the phone, live and media sockets; resolves once it listens. */
async function serve(parts: Parts, appApkPath: string): Promise<Served> {
  const { config, log, timings, store, settings, apiKeys, devices, hub, calls, webhooks, streams, assistant, accounts, live, media, attachments, callStates, cluster } = parts;
  const limiters = cluster?.limiters ?? MemoryFailureLimiter.factory;
  const services: HttpServices = {
    config,
    log,
    settings,
    apiKeys,
    devices,
    hub,
    calls,
    webhooks,
    pairingLimiter: limiters('pairing', 10, 60_000, 'pairing'),
    streams,
    assistant,
    isStreaming: (callId) => media.isStreaming(callId),
    accounts,
    live,
    appApkPath,
    ready: () => store.ping(),
    sessionPrincipal: sessionPrincipalResolver(accounts, config.publicUrl),
    metrics: new GatewayMetrics({ callStates, streams, assistant, media, webhooks, hub }),
    routing: cluster?.routing,
  };
  const authenticate = (req: IncomingMessage) => upgradePrincipal(services, req);
  const liveSockets = new LiveSocketServer({ live, log, pingIntervalMs: timings.pingIntervalMs, authenticate });
  const audioPing = { pingIntervalMs: timings.audioPingIntervalMs, pongTimeoutMs: timings.pongTimeoutMs };
  const mediaSockets = new MediaSockets({ calls, media, attachments, log, ping: audioPing, authenticate });

  const app = createHttpApp(services);
  const upgrades = new UpgradeRouter(log);
  upgrades.add('/v1/phone', hub.handleUpgrade);
  upgrades.add('/v1/live', liveSockets.handleUpgrade);
  upgrades.add('/v1/calls/{callId}/media', proxyToPhoneNode(cluster?.routing, authenticate, log, mediaSockets.handleUpgrade));
  const server = createNodeServer(app.fetch);
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
  return { url, port, services, server, liveSockets, mediaSockets };
}

function closer(parts: Parts, served: Served, unwire: () => void): () => Promise<void> {
  const { log, calls, streams, assistant, media, hub, webhooks, cluster, store } = parts;
  const { server, liveSockets, mediaSockets, services } = served;
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      log.info('gateway shutting down');
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), LIMITS.shutdownGraceMs - 1500);
      calls.stop();
      unwire();
      liveSockets.close();
      streams.close();
      assistant.close();
      mediaSockets.close();
      media.stop();
      await hub.close();
      await stopped;
      clearTimeout(grace);
      await webhooks.stop();
      await cluster?.leave();
      await store.close();
      services.metrics.close();
      log.info('gateway stopped');
    })());
}

/** Where the other nodes on this machine reach a gateway bound to `host`, when NODE_URL does not say. */
function loopbackOf(host: string): string {
  if (host === '0.0.0.0' || host === 'localhost') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
