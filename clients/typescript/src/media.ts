import WebSocket from 'ws';

/** The first message of a media socket (contract.md, "Media WebSocket"). */
export interface MediaStart {
  type: 'start';
  callId: string;
  direction: 'incoming' | 'outgoing';
  remoteNumber: string;
  deviceId: string;
  format: { encoding: string; sampleRate: number; channels: number; [k: string]: unknown };
  [k: string]: unknown;
}

/** The last message, before the gateway closes with 1000 at the call's end. */
export interface MediaStop {
  type: 'stop';
  callId: string;
}

export interface MediaHandlers {
  onStart?(start: MediaStart): void;
  /** 16 kHz mono s16le PCM of the remote party, in 20 ms (640-byte) frames. */
  onAudio?(pcm: Buffer): void;
  onStop?(stop: MediaStop): void;
}

export interface MediaSocket {
  /** Resolves with the start message. */
  readonly started: Promise<MediaStart>;
  /** Resolves when the socket has closed, with its close code. */
  readonly closed: Promise<number>;
  /** Plays 16 kHz mono s16le PCM of any length into the call, after what was sent before. */
  send(pcm: Buffer): void;
  /** Drops what was sent and has not played yet. */
  clear(): void;
  close(): void;
}

/** Opens `/v1/calls/{callId}/media` with the API key. */
export function openMediaSocket(baseUrl: string, apiKey: string, callId: string, handlers: MediaHandlers = {}): MediaSocket {
  const url = `${baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/v1/calls/${encodeURIComponent(callId)}/media`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` } });
  const started = new Promise<MediaStart>((resolve, reject) => {
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        handlers.onAudio?.(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
        return;
      }
      const message = JSON.parse(String(data)) as MediaStart | MediaStop | { type: string };
      if (message.type === 'start') {
        handlers.onStart?.(message as MediaStart);
        resolve(message as MediaStart);
      } else if (message.type === 'stop') {
        handlers.onStop?.(message as MediaStop);
      }
    });
    ws.on('unexpected-response', (_req, res) => reject(new Error(`media socket refused: ${res.statusCode ?? 0}`)));
    ws.on('error', reject);
  });
  // A refused upgrade rejects `started`; callers awaiting `closed` only must not see an unhandled rejection.
  started.catch(() => undefined);
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return {
    started,
    closed,
    send: (pcm) => ws.send(pcm),
    clear: () => ws.send(JSON.stringify({ type: 'clear' })),
    close: () => ws.close(1000),
  };
}
