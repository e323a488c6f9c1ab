import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { LiveMessage } from './types';

export type LiveStatus = 'connecting' | 'open' | 'closed';
type Listener = (message: LiveMessage) => void;

/**
 * The live channel (`/v1/live`, docs/console.md): one WebSocket per tab, reconnecting with backoff.
 * Nothing is replayed, so every time the channel opens subscribers get `resync` and reload: after a
 * gap, and also the first time, since a page loads its data before the channel is open and a change
 * in between (a call that starts ringing) would otherwise never show.
 */
class LiveClient {
  private ws: WebSocket | null = null;
  private listeners = new Set<Listener>();
  private resyncListeners = new Set<() => void>();
  private statusListeners = new Set<() => void>();
  private retryMs = 1000;
  private timer: number | undefined;
  private wanted = false;
  /** Asked when the channel is refused or closed for its credential: is the session still good? */
  checkSession: (() => void) | null = null;
  status: LiveStatus = 'closed';

  start(): void {
    if (this.wanted) return;
    this.wanted = true;
    this.connect();
  }

  stop(): void {
    this.wanted = false;
    window.clearTimeout(this.timer);
    this.ws?.close(1000, 'signed out');
    this.ws = null;
    this.setStatus('closed');
  }

  private connect(): void {
    const url = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/v1/live`;
    this.setStatus('connecting');
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 1000;
      this.setStatus('open');
      this.resyncListeners.forEach((l) => l());
    };
    ws.onmessage = (e: MessageEvent<string>) => {
      let message: LiveMessage;
      try {
        message = JSON.parse(e.data) as LiveMessage;
      } catch {
        return;
      }
      this.listeners.forEach((l) => l(message));
    };
    let opened = false;
    ws.addEventListener('open', () => (opened = true));
    ws.onclose = (e: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setStatus('closed');
      if (!this.wanted) return;
      // 4001: the session ended; a refused upgrade never opens. Either way, ask whether we are signed out.
      if (e.code === 4001 || !opened) this.checkSession?.();
      this.timer = window.setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 15_000);
    };
  }

  private setStatus(status: LiveStatus): void {
    this.status = status;
    this.statusListeners.forEach((l) => l());
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  onStatus(listener: () => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }
}

export const live = new LiveClient();

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (l) => live.onStatus(l),
    () => live.status,
  );
}

/** Calls `onMessage` for every live message (the latest closure), and `onResync` after a reconnect. */
export function useLive(onMessage: Listener, onResync?: () => void): void {
  const message = useRef(onMessage);
  const resync = useRef(onResync);
  useEffect(() => {
    message.current = onMessage;
    resync.current = onResync;
  });
  useEffect(() => {
    const off1 = live.subscribe((m) => message.current(m));
    const off2 = live.onResync(() => resync.current?.());
    return () => {
      off1();
      off2();
    };
  }, []);
}
