import { sha256 } from '../auth/index.js';
import type { CallService, CallStateCounts } from '../calls/index.js';
import type { LiveHub, LiveMessage } from '../live/index.js';
import type { Logger } from '../log.js';
import type { FailureLimiterFactory, PhoneHub, PhonePresence } from '../phones/index.js';
import type { SettingsService } from '../settings/index.js';
import { ClusterRepo, type Db, type SecretBox } from '../store/index.js';
import type { WebhookClaims, WebhookDispatcher } from '../webhooks/index.js';
import { ClusterBus } from './bus.js';
import { NODE_ID_HEADER, NodeLink } from './link.js';
import { ClusterNode, DEFAULT_NODE_TIMINGS, type NodeTimings } from './node.js';
import { sharedFailureLimiters } from './rate-limit.js';
import { PhoneRouting } from './routing.js';

export interface ClusterTimings extends NodeTimings {
  /** How often a node claims the webhook jobs no live node holds. */
  claimPollMs: number;
  /** How often a node reads the settings again, whatever it heard: the bound on a missed change's staleness. */
  settingsRefreshMs: number;
}

export const DEFAULT_CLUSTER_TIMINGS: ClusterTimings = { ...DEFAULT_NODE_TIMINGS, claimPollMs: 1_000, settingsRefreshMs: 2_000 };

/** The label of the key the nodes derive from the shared secret key to recognise each other's requests. */
const TOKEN_LABEL = 'voice-gateway cluster node token v1';

/** What the cluster connects, once the gateway has built it. */
export interface ClusterParts {
  hub: PhoneHub;
  calls: CallService;
  settings: SettingsService;
  live: LiveHub;
  callStates: CallStateCounts;
  webhooks: WebhookDispatcher;
}

/**
 * This gateway as one node of several on one PostgreSQL database (docs/cluster.md): its membership
 * and heartbeat, the bus the nodes tell each other facts on (LISTEN/NOTIFY), the link they pass
 * requests and media sockets over (HTTP), which node holds each phone, and the rate limits and
 * webhook claims they share.
 */
export class Cluster {
  readonly repo: ClusterRepo;
  readonly node: ClusterNode;
  readonly bus: ClusterBus;
  readonly routing: PhoneRouting;
  readonly limiters: FailureLimiterFactory;
  private readonly link: NodeLink;
  private settingsTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: { db: Db; connectionString: string; databaseTimeoutMs: number; box: SecretBox; log: Logger; timings: ClusterTimings },
  ) {
    this.repo = new ClusterRepo(o.db);
    this.node = new ClusterNode({ repo: this.repo, log: o.log, timings: o.timings });
    this.bus = new ClusterBus({ connectionString: o.connectionString, timeoutMs: o.databaseTimeoutMs, db: o.db, repo: this.repo, nodeId: () => this.node.id, log: o.log });
    this.link = new NodeLink(o.box.derive(TOKEN_LABEL).map((key) => key.toString('base64url')));
    this.routing = new PhoneRouting({ repo: this.repo, node: this.node, link: this.link });
    this.limiters = sharedFailureLimiters(this.repo);
  }

  /** Where the phone hub records which node holds each phone; tells the other nodes, whose older socket of it closes. */
  readonly presence: PhonePresence = {
    hold: async (deviceId, connectionId) => {
      await this.repo.holdPhone(deviceId, this.node.id, connectionId);
      this.bus.publish('phone', `${deviceId} ${connectionId}`);
    },
    release: (deviceId, connectionId) => this.repo.releasePhone(deviceId, connectionId),
  };

  /** Phones whose socket another live node holds (this node's own, its hub knows better than its rows). */
  connectedPhones(deviceIds?: string[]): Promise<Set<string>> {
    if (this.node.alone) return Promise.resolve(new Set());
    return this.repo.connectedPhones(this.node.leaseMs, this.node.id, deviceIds);
  }

  /** Whether another live node holds the phone's socket. */
  async connectedElsewhere(deviceId: string): Promise<boolean> {
    return (await this.connectedPhones([deviceId])).has(deviceId);
  }

  /** Several gateways print a setup token each at the first run: any node accepts any live node's. */
  async publishSetupToken(token: string): Promise<void> {
    await this.repo.setSetupTokenHash(this.node.id, sha256(token).toString('hex'));
  }

  isSetupToken(token: string): Promise<boolean> {
    return this.repo.isSetupTokenHash(sha256(token.trim()).toString('hex'), this.node.leaseMs);
  }

  claims(): WebhookClaims {
    return { nodeId: () => this.node.id, leaseHeld: () => this.node.leaseHeld(), leaseMs: this.node.leaseMs, pollMs: this.o.timings.claimPollMs };
  }

  /** Before the gateway serves: listens to the other nodes. */
  async listen(parts: ClusterParts): Promise<void> {
    const { hub, calls, settings, live, callStates, webhooks } = parts;
    const log = this.o.log;
    const onMessage = (kind: string, payload: string): void => {
      if (kind === 'live') {
        const message = JSON.parse(payload) as LiveMessage;
        live.deliver(message, payload);
        if (message.type === 'call') callStates.apply(message.previousState, message.call.state);
      } else if (kind === 'settings') {
        settings.reload().catch((err: unknown) => log.warn({ err }, 'could not read the settings another node changed'));
      } else if (kind === 'node') {
        this.node.countPeers().catch((err: unknown) => log.warn({ err }, 'could not count the other nodes'));
      } else if (kind === 'phone') {
        const [deviceId = '', connectionId = ''] = payload.split(' ');
        this.phoneMoved(hub, calls, deviceId, connectionId).catch((err: unknown) => log.warn({ err, deviceId }, 'could not let go of a phone that moved'));
      }
    };
    const onResync = (): void => {
      settings.reload().catch((err: unknown) => log.warn({ err }, 'could not read the settings again'));
      callStates.recount().catch((err: unknown) => log.warn({ err }, 'could not count the calls again'));
    };
    // The cluster's own emitters: they go with it at shutdown, listeners and all.
    this.bus.on('message', onMessage);
    this.bus.on('resync', onResync);
    live.relayTo({ send: (text) => this.bus.publish('live', text), active: () => !this.node.alone });
    settings.onSaved(() => this.bus.publish('settings', ''));
    await this.bus.start();

    const onReaped = (_nodes: string[], devices: string[]): void => {
      // This node took the dead node's phones off the map: their calls get the grace period here.
      for (const deviceId of devices) {
        calls.onDisconnected(deviceId);
        hub.emit('device', deviceId);
      }
    };
    const onRejoined = (): void => {
      this.bus.publish('node', this.node.id);
      hub.holdAgain().catch((err: unknown) => log.warn({ err }, 'could not record this node\'s phones again'));
      webhooks.reclaim().catch((err: unknown) => log.error({ err }, 'could not claim the webhook jobs again'));
    };
    this.node.on('reaped', onReaped);
    this.node.on('rejoined', onRejoined);
    this.settingsTimer = setInterval(() => void settings.reload().catch((err: unknown) => log.warn({ err }, 'could not read the settings again')), this.o.timings.settingsRefreshMs);
    this.settingsTimer.unref();
  }

  /**
   * Another node holds the phone's socket now: an older socket of it here is closed as replaced, and
   * its calls are let go. A message that arrives after this node took the phone back is stale: the
   * phone's row names the socket recorded last.
   */
  private async phoneMoved(hub: PhoneHub, calls: CallService, deviceId: string, connectionId: string): Promise<void> {
    if ((await this.repo.phoneConnection(deviceId)) !== connectionId) return;
    hub.replacedElsewhere(deviceId, connectionId);
    await calls.releaseDevice(deviceId);
  }

  /** Once the gateway listens: the node joins, with its address (NODE_URL, or the loopback address and the bound port). */
  async join(url: string): Promise<void> {
    await this.node.join(url);
    this.bus.publish('node', this.node.id);
  }

  /** Null when the node's address reaches this very node; else what is wrong, for the start log. */
  async checkAddress(): Promise<string | null> {
    const url = this.node.url;
    const outcome = await this.link.forward(url, { method: 'GET', path: '/health', headers: new Headers(), body: undefined }, 5_000);
    if (outcome === 'unreachable' || outcome === 'timeout') {
      return `this gateway cannot reach itself at ${url} (${outcome}): the other nodes cannot pass it requests for its phones; set NODE_URL to an address they reach it at`;
    }
    const answered = outcome.headers.get(NODE_ID_HEADER);
    if (answered === this.node.id) return null;
    return `${url} reaches ${answered ? `another node (${answered})` : 'something that is not a node of this cluster'}, not this gateway: set NODE_URL to the address the other nodes reach this one at`;
  }

  /** Leaves the cluster (its phones and webhook claims are let go at once) and stops listening. */
  async leave(): Promise<void> {
    if (this.settingsTimer) clearInterval(this.settingsTimer);
    await this.node.leave();
    await this.bus.close();
    this.link.close();
  }
}
