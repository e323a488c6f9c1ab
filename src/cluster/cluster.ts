import { EventEmitter } from 'node:events';
import { sha256 } from '../auth/index.js';
import { CALL_STATES, type CallState } from '../calls/state.js';
import type { LiveRelay } from '../live/index.js';
import type { Logger } from '../log.js';
import type { FailureLimiterFactory } from '../phones/index.js';
import { ClusterRepo, type Db, type SecretBox } from '../store/index.js';
import { ClusterBus, type BusKind } from './bus.js';
import { ClusterJobs } from './jobs.js';
import { ClusterPhones } from './phones.js';
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

const isCallState = (text: string): text is CallState => (CALL_STATES as readonly string[]).includes(text);

/** What the cluster hears from the other nodes, for the gateway's wiring to act on. */
export interface ClusterEvents {
  /** A LiveMessage another node published (its JSON text), for this node's consoles. */
  live: [text: string];
  /** A call moved between states on another node (null: a new call). */
  callState: [previousState: CallState | null, state: CallState];
  /** The settings may have changed: another node saved them, or the periodic refresh is due. */
  settings: [why: 'changed' | 'refresh'];
  /** The bus was lost for a while: what is cached from other nodes' messages may be stale. */
  resync: [];
  /** This node was declared dead and joined again under a new id: what it held may have been taken over. */
  rejoined: [];
}

/**
 * This gateway as one node of several on one PostgreSQL database (docs/cluster.md): its membership
 * and heartbeat, the bus the nodes tell each other facts on (LISTEN/NOTIFY), the link they pass
 * requests and media sockets over (HTTP), which node holds each phone (`phones`, the hub's
 * directory), which node makes each webhook attempt (`jobs`), and the rate limits they share. It
 * knows nothing of the domain: the gateway wires its events and ports in.
 */
export class Cluster extends EventEmitter<ClusterEvents> {
  readonly repo: ClusterRepo;
  readonly node: ClusterNode;
  readonly bus: ClusterBus;
  readonly routing: PhoneRouting;
  readonly limiters: FailureLimiterFactory;
  readonly phones: ClusterPhones;
  readonly jobs: ClusterJobs;
  /** The console's live messages go to the other nodes too, while there are any. */
  readonly liveRelay: LiveRelay;
  private readonly link: NodeLink;
  private settingsTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: { db: Db; connectionString: string; databaseTimeoutMs: number; box: SecretBox; log: Logger; timings: ClusterTimings },
  ) {
    super();
    this.repo = new ClusterRepo(o.db);
    this.node = new ClusterNode({ repo: this.repo, log: o.log, timings: o.timings });
    this.bus = new ClusterBus({ connectionString: o.connectionString, timeoutMs: o.databaseTimeoutMs, db: o.db, repo: this.repo, nodeId: () => this.node.id, log: o.log });
    this.link = new NodeLink(o.box.derive(TOKEN_LABEL).map((key) => key.toString('base64url')));
    this.routing = new PhoneRouting({ repo: this.repo, node: this.node, link: this.link });
    this.limiters = sharedFailureLimiters(this.repo);
    this.phones = new ClusterPhones({ repo: this.repo, node: this.node, bus: this.bus, log: o.log });
    this.jobs = new ClusterJobs({ repo: this.repo, node: this.node, log: o.log.child({ component: 'webhooks' }), pollMs: o.timings.claimPollMs });
    this.liveRelay = { send: (text) => this.bus.publish('live', text), active: () => !this.node.alone };
  }

  /** Several gateways print a setup token each at the first run: any node accepts any live node's. */
  async publishSetupToken(token: string): Promise<void> {
    await this.repo.setSetupTokenHash(this.node.id, sha256(token).toString('hex'));
  }

  isSetupToken(token: string): Promise<boolean> {
    return this.repo.isSetupTokenHash(sha256(token.trim()).toString('hex'), this.node.leaseMs);
  }

  /** Tells the other nodes that the settings changed here. */
  settingsSaved(): void {
    this.bus.publish('settings', '');
  }

  /** Tells the other nodes that a call moved between states here (their call-state counts follow). */
  callStateChanged(previousState: CallState | null, state: CallState): void {
    if (!this.node.alone) this.bus.publish('call', `${previousState ?? ''} ${state}`);
  }

  /** Before the gateway serves: listens to the other nodes. */
  async listen(): Promise<void> {
    const log = this.o.log;
    // The cluster's own emitters: they go with it at shutdown, listeners and all.
    this.bus.on('message', (kind, payload) => this.heard(kind, payload));
    this.bus.on('resync', () => this.emit('resync'));
    await this.bus.start();
    this.node.on('reaped', (_nodes, devices) => this.phones.heardLost(devices));
    this.node.on('rejoined', () => {
      this.bus.publish('node', this.node.id);
      this.phones.holdAgain().catch((err: unknown) => log.warn({ err }, 'could not record this node\'s phones again'));
      this.emit('rejoined');
    });
    this.settingsTimer = setInterval(() => this.emit('settings', 'refresh'), this.o.timings.settingsRefreshMs);
    this.settingsTimer.unref();
  }

  private heard(kind: BusKind, payload: string): void {
    const log = this.o.log;
    if (kind === 'live') this.emit('live', payload);
    else if (kind === 'call') {
      const [previous = '', state = ''] = payload.split(' ');
      if (isCallState(state) && (previous === '' || isCallState(previous))) this.emit('callState', previous === '' ? null : previous, state);
    } else if (kind === 'settings') this.emit('settings', 'changed');
    else if (kind === 'node') this.node.countPeers().catch((err: unknown) => log.warn({ err }, 'could not count the other nodes'));
    else if (kind === 'phone') {
      const [deviceId = '', connectionId = ''] = payload.split(' ');
      this.phones.heardMoved(deviceId, connectionId).catch((err: unknown) => log.warn({ err, deviceId }, 'could not let go of a phone that moved'));
    }
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
