import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import type { PhoneDirectory } from '../phones/index.js';
import type { ClusterRepo } from '../store/index.js';
import type { ClusterBus } from './bus.js';
import type { ClusterNode } from './node.js';

/**
 * The phone directory of a node of a cluster (docs/cluster.md): which node holds each phone's socket,
 * in phone_connections, told to the other nodes on the bus. Its events: `moved`, the phone opened a
 * newer socket on another node (an older one here is let go, and its calls with it); `lost`, the
 * phone's node died and this node took it off the map (its calls get their grace period here).
 */
export class ClusterPhones extends EventEmitter<{ moved: [deviceId: string, connectionId: string]; lost: [deviceId: string] }> implements PhoneDirectory {
  readonly shared = true;
  /** Each socket's record being written, so that its removal waits for it. */
  private readonly holds = new Map<string, Promise<void>>();
  /** The phones this node holds, by socket: recorded again if the node joins anew under another id. */
  private readonly held = new Map<string, string>();
  /** The removal of a phone's record, while it is being made. */
  private readonly leaving = new Map<string, Promise<void>>();

  constructor(private readonly o: { repo: ClusterRepo; node: ClusterNode; bus: ClusterBus; log: Logger }) {
    super();
  }

  hold(deviceId: string, connectionId: string): Promise<void> {
    const hold = (async () => {
      await this.o.repo.holdPhone(deviceId, this.o.node.id, connectionId);
      this.o.bus.publish('phone', `${deviceId} ${connectionId}`);
    })();
    this.holds.set(connectionId, hold.catch(() => undefined));
    this.held.set(deviceId, connectionId);
    return hold;
  }

  /** The record is removed after it was written (a socket can drop while its hello is held). */
  release(deviceId: string, connectionId: string): void {
    const written = this.holds.get(connectionId) ?? Promise.resolve();
    this.holds.delete(connectionId);
    if (this.held.get(deviceId) === connectionId) this.held.delete(deviceId);
    const left = written
      .then(() => this.o.repo.releasePhone(deviceId, connectionId))
      .catch((err: unknown) => this.o.log.warn({ err, deviceId }, 'could not record that the phone left this node'));
    this.leaving.set(deviceId, left);
    void left.then(() => {
      if (this.leaving.get(deviceId) === left) this.leaving.delete(deviceId);
    });
  }

  whenLeft(deviceId: string): Promise<void> {
    return this.leaving.get(deviceId) ?? Promise.resolve();
  }

  /** Phones whose socket another live node holds (this node's own, its hub knows better than its rows). */
  elsewhere(deviceIds?: string[]): Promise<Set<string>> {
    if (this.o.node.alone) return Promise.resolve(new Set());
    return this.o.repo.connectedPhones(this.o.node.leaseMs, this.o.node.id, deviceIds);
  }

  /** Records again that this node holds its phones (it joined the cluster anew under another id). */
  async holdAgain(): Promise<void> {
    for (const [deviceId, connectionId] of [...this.held]) await this.hold(deviceId, connectionId);
  }

  /**
   * Another node holds the phone's socket now. A message that arrives after this node took the phone
   * back is stale: the phone's row names the socket recorded last.
   */
  async heardMoved(deviceId: string, connectionId: string): Promise<void> {
    if ((await this.o.repo.phoneConnection(deviceId)) !== connectionId) return;
    this.emit('moved', deviceId, connectionId);
  }

  /** This node took a dead node's phones off the map. */
  heardLost(deviceIds: string[]): void {
    for (const deviceId of deviceIds) this.emit('lost', deviceId);
  }
}
