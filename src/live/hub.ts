import type { LiveMessage } from './messages.js';

export type LiveListener = (message: LiveMessage, text: string) => void;

/**
 * Fans live messages out to the open console connections; serializes each message once. With
 * several gateways, what one node publishes is relayed to the others, which deliver it to their own
 * consoles (docs/cluster.md).
 */
export class LiveHub {
  private readonly listeners = new Set<LiveListener>();
  private relay: { send(text: string): void; active(): boolean } | undefined;

  subscribe(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Several gateways: every message published here also goes to the other nodes, while there are any. */
  relayTo(relay: { send(text: string): void; active(): boolean }): void {
    this.relay = relay;
  }

  /** Who hears a message published here: this node's consoles, and the other nodes'. */
  get size(): number {
    return this.listeners.size + (this.relay?.active() ? 1 : 0);
  }

  publish(message: LiveMessage): void {
    if (this.size === 0) return;
    const text = JSON.stringify(message);
    this.deliver(message, text);
    if (this.relay?.active()) this.relay.send(text);
  }

  /** A message another node published: to this node's consoles only. */
  deliver(message: LiveMessage, text: string): void {
    for (const listener of this.listeners) listener(message, text);
  }
}
