import type { LiveMessage } from './messages.js';

export type LiveListener = (message: LiveMessage, text: string) => void;

/** Where the messages published here also go: the other nodes of a cluster, while there are any. */
export interface LiveRelay {
  send(text: string): void;
  active(): boolean;
}

/** One gateway: its own consoles are all there is. */
export const NO_RELAY: LiveRelay = { send: () => undefined, active: () => false };

/**
 * Fans live messages out to the open console connections; serializes each message once. With
 * several gateways, what one node publishes is relayed to the others, which deliver it to their own
 * consoles (docs/cluster.md).
 */
export class LiveHub {
  private readonly listeners = new Set<LiveListener>();

  constructor(private readonly relay: LiveRelay = NO_RELAY) {}

  subscribe(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Who hears a message published here: this node's consoles, and the other nodes'. */
  get size(): number {
    return this.listeners.size + (this.relay.active() ? 1 : 0);
  }

  publish(message: LiveMessage): void {
    if (this.size === 0) return;
    const text = JSON.stringify(message);
    this.deliver(message, text);
    if (this.relay.active()) this.relay.send(text);
  }

  /** A message another node published: to this node's consoles only. */
  deliver(message: LiveMessage, text: string): void {
    for (const listener of this.listeners) listener(message, text);
  }
}
