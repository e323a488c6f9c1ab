import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';
import type { ClusterRepo } from '../store/index.js';

export interface NodeTimings {
  /** How often the node renews its lease. */
  heartbeatMs: number;
  /** A node whose heartbeat is older than this is dead: its phones are offline, its webhook claims are taken over. */
  leaseMs: number;
}

/** The bound: a node whose heartbeat stops is dead within 15 s. */
export const DEFAULT_NODE_TIMINGS: NodeTimings = { heartbeatMs: 5_000, leaseMs: 15_000 };

const SWEEP_EVERY_MS = 60_000;

type Membership = 'out' | 'in' | 'leaving';

const newNodeId = (): string => `node-${randomBytes(6).toString('hex')}`;

/**
 * This gateway's membership of the cluster: a row in cluster_nodes with its address, renewed every
 * heartbeat (the lease of everything the node holds: phones, webhook claims). Each heartbeat also
 * declares dead the nodes whose lease ran out (`reaped`: exactly one node hears of each, with the
 * phones it held). A node that finds itself declared dead (a pause or a lost database longer than
 * the lease) joins again under a new id (`rejoined`), since others may have taken over its claims.
 */
export class ClusterNode extends EventEmitter<{ reaped: [nodes: string[], devices: string[]]; rejoined: [previousId: string] }> {
  private currentId = newNodeId();
  private state: Membership = 'out';
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private lastRenewed = -Infinity;
  private lastSweep = performance.now();
  private nodeUrl = '';
  private peers = 0;

  constructor(
    private readonly o: { repo: ClusterRepo; log: Logger; timings: NodeTimings },
  ) {
    super();
  }

  get id(): string {
    return this.currentId;
  }

  /** The address the other nodes reach this one at. */
  get url(): string {
    return this.nodeUrl;
  }

  get leaseMs(): number {
    return this.o.timings.leaseMs;
  }

  /** No other live node (as of the last heartbeat, or the last node that announced itself): nothing to route, relay or look up. */
  get alone(): boolean {
    return this.peers === 0;
  }

  /** Counts the other live nodes again (a node announced itself). */
  async countPeers(): Promise<void> {
    const nodes = await this.o.repo.liveNodes(this.o.timings.leaseMs);
    this.peers = nodes.filter((node) => node.id !== this.currentId).length;
  }

  /**
   * True while the lease surely holds: renewed less than a lease minus one heartbeat ago. Past that,
   * the node makes no webhook attempt, since another node may be about to take its claims over.
   */
  leaseHeld(): boolean {
    return this.state === 'in' && performance.now() - this.lastRenewed < this.o.timings.leaseMs - this.o.timings.heartbeatMs;
  }

  async join(url: string): Promise<void> {
    this.nodeUrl = url;
    await this.o.repo.register({ id: this.currentId, url });
    this.lastRenewed = performance.now();
    this.state = 'in';
    await this.countPeers();
    this.o.log.info({ nodeId: this.currentId, nodeUrl: url, otherNodes: this.peers }, 'joined the cluster');
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.beating = this.beat().finally(() => {
        if (this.state === 'in') this.schedule();
      });
    }, this.o.timings.heartbeatMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const started = performance.now();
    try {
      if (await this.o.repo.heartbeat(this.currentId)) this.lastRenewed = started;
      else await this.rejoin();
      await this.countPeers();
      const { nodes, devices } = await this.o.repo.reapDead(this.o.timings.leaseMs);
      if (nodes.length > 0) {
        this.o.log.warn({ nodes, phones: devices.length }, 'nodes stopped answering; taking over what they held');
        this.emit('reaped', nodes, devices);
      }
      if (performance.now() - this.lastSweep > SWEEP_EVERY_MS) {
        this.lastSweep = performance.now();
        await this.o.repo.sweep();
      }
    } catch (err) {
      this.o.log.warn({ err, nodeId: this.currentId }, 'cluster heartbeat failed');
    }
  }

  private async rejoin(): Promise<void> {
    const previousId = this.currentId;
    this.currentId = newNodeId();
    this.o.log.error({ previousId, nodeId: this.currentId }, 'this node was declared dead (its heartbeat stopped for longer than the lease); joining again under a new id');
    await this.o.repo.register({ id: this.currentId, url: this.nodeUrl });
    this.lastRenewed = performance.now();
    this.emit('rejoined', previousId);
  }

  /** Leaves the cluster: what it held (phones, webhook claims) is let go at once rather than when its lease runs out. */
  async leave(): Promise<void> {
    if (this.state !== 'in') return;
    this.state = 'leaving';
    if (this.timer) clearTimeout(this.timer);
    await this.beating;
    try {
      await this.o.repo.leave(this.currentId);
    } catch (err) {
      this.o.log.warn({ err, nodeId: this.currentId }, 'could not leave the cluster; others take over when its lease runs out');
    }
    this.state = 'out';
  }
}
