import type { LiveMessage } from './messages.js';

export type LiveListener = (message: LiveMessage, text: string) => void;

/** Fans live messages out to the open console connections; serializes each message once. */
export class LiveHub {
  private readonly listeners = new Set<LiveListener>();

  subscribe(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  publish(message: LiveMessage): void {
    if (this.listeners.size === 0) return;
    const text = JSON.stringify(message);
    for (const listener of this.listeners) listener(message, text);
  }
}
