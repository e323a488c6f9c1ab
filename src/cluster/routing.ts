import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ClusterRepo } from '../store/index.js';
import type { ForwardedRequest, ForwardOutcome, NodeLink, UpgradeOutcome } from './link.js';
import type { ClusterNode } from './node.js';

/** Long enough for the slowest request a phone's node serves: a hand-off to the assistant waits for the model (10 s) and the phone's ack (5 s). */
export const FORWARD_TIMEOUT_MS = 30_000;

/**
 * Which node serves what concerns a phone (commands, its calls' streams, assistant and audio): the
 * live node that holds its socket. What the edges of another node pass there.
 */
export class PhoneRouting {
  constructor(private readonly o: { repo: ClusterRepo; node: ClusterNode; link: NodeLink }) {}

  /** Whether a request (its NODE_HEADER) was passed on by another node: then it is served here. */
  fromNode(value: string | string[] | null | undefined): boolean {
    return this.o.link.fromNode(value);
  }

  /** The address of the other node that holds the phone's socket; null when none does, or this one. */
  async nodeOfDevice(deviceId: string): Promise<string | null> {
    if (this.o.node.alone) return null;
    const node = await this.o.repo.phoneNode(deviceId, this.o.node.leaseMs);
    return node && node.id !== this.o.node.id ? node.url : null;
  }

  /** The address of the other node that holds the socket of the call's phone; null when none does, or this one. */
  async nodeOfCall(callId: string): Promise<string | null> {
    if (this.o.node.alone) return null;
    const node = await this.o.repo.callNode(callId, this.o.node.leaseMs);
    return node && node.id !== this.o.node.id ? node.url : null;
  }

  forward(target: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    return this.o.link.forward(target, request, FORWARD_TIMEOUT_MS);
  }

  proxyUpgrade(target: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<UpgradeOutcome> {
    return this.o.link.proxyUpgrade(target, req, socket, head);
  }

  get nodeId(): string {
    return this.o.node.id;
  }
}
