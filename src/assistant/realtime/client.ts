import { EventEmitter } from 'node:events';
import { WebSocket, type RawData } from 'ws';
import { LIMITS } from '../../limits.js';
import { dial, type OutboundPolicy } from '../../outbound/index.js';
import { Heartbeat, type PingTimings } from '../../socket-guard.js';
import { BoundedWriter } from '../../socket-writes.js';
import type { RealtimeClientEvents } from './events.js';
import { RealtimeError, dialError, redactSecrets } from './errors.js';
import { DEFAULT_ASSISTANT_MODEL, DEFAULT_REALTIME_URL } from './session.js';
import {
  isKnownServerEvent,
  parseServerEvent,
  type ClientEvent,
  type KnownServerEvent,
  type RealtimeResponse,
  type SessionUpdateEvent,
} from './wire.js';

export type { RealtimeAudioChunk, RealtimeClientEvents, RealtimeClose, RealtimeFunctionCall, RealtimeResponseDone, RealtimeSpeechStarted } from './events.js';

export interface RealtimeConnectOptions {
  /** Defaults to DEFAULT_REALTIME_URL; `ws://` works too, and an existing query is kept. */
  url?: string;
  /** Sent as the `model` query parameter; defaults to DEFAULT_ASSISTANT_MODEL. */
  model?: string;
  apiKey: string;
  /** Sent as the first event once the socket is open. */
  sessionUpdate: SessionUpdateEvent;
  /** Covers TCP connect, TLS and the HTTP upgrade. Default 10 s. */
  connectTimeoutMs?: number;
  /** Aborts the connect; after connecting, closes the client. */
  signal?: AbortSignal;
  /** Which addresses the endpoint may resolve to (OUTBOUND_DENY / OUTBOUND_ALLOW); any without it. */
  outbound?: OutboundPolicy;
  /**
   * How often the open socket is pinged, and how long the server may take to answer; one that
   * does not is given up (`unresponsive`). Default: as agent sockets (10 s and 10 s).
   */
  ping?: PingTimings;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_PING: PingTimings = { pingIntervalMs: LIMITS.audioPingIntervalMs, pongTimeoutMs: LIMITS.pongTimeoutMs };
const CLOSE_GRACE_MS = 1_000;
/**
 * About a second of caller audio as `input_audio_buffer.append` (24 kHz s16le in base64: 64,000
 * bytes, plus the JSON around each 20 ms): a model with more than this not yet taken is not
 * reading, and the socket is given up rather than left to grow the gateway's memory.
 */
const MAX_BUFFERED_BYTES = 70_000;
const MAX_ERROR_BODY_BYTES = 16 * 1024;

export function realtimeUrl(url: string, model: string): string {
  const u = new URL(url);
  u.searchParams.set('model', model);
  return u.toString();
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}


function rawToText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * One session with the OpenAI Realtime API (GA) over a raw WebSocket. The key is used only in
 * the upgrade request's Authorization header and is scrubbed from every error message.
 * `error` events are only emitted when someone listens, so a forgotten listener cannot crash
 * the process.
 */
export class RealtimeClient extends EventEmitter<RealtimeClientEvents> {
  readonly #ws: WebSocket;
  readonly #apiKey: string;
  readonly #calledBack = new Set<string>();
  /**
   * Caller audio, bounded like every audio socket's writes but not held to the end of the turn
   * (docs/architecture.md, the audio path): a model more than about a second behind is given up.
   */
  readonly #audio: BoundedWriter;
  #closed = false;
  #detachSignal: (() => void) | undefined;

  private constructor(ws: WebSocket, apiKey: string, ping: PingTimings) {
    super();
    this.#ws = ws;
    this.#apiKey = apiKey;
    this.#audio = new BoundedWriter(ws, {
      maxBufferedBytes: MAX_BUFFERED_BYTES,
      // Its close frame would wait behind what it does not read.
      cutOff: 'terminate',
      onCutOff: () => this.#emitError(new RealtimeError('too_slow', 'The assistant model fell more than 1 s behind reading the call audio')),
    });
    // A server that hangs, or a connection that died without a FIN, would otherwise leave the caller
    // talking to nobody until TCP gives up, many minutes later.
    const heartbeat = new Heartbeat(ws, {
      intervalMs: ping.pingIntervalMs,
      timeoutMs: ping.pongTimeoutMs,
      onMissed: () => {
        this.#emitError(new RealtimeError('unresponsive', `The assistant model did not answer a ping within ${ping.pongTimeoutMs} ms`));
        ws.terminate();
      },
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.#onText(rawToText(data));
    });
    ws.on('error', (err) => {
      this.#emitError(new RealtimeError('network_error', `Realtime connection error: ${this.#redact(err.message)}`));
    });
    ws.once('close', (code, reason) => {
      heartbeat.stop();
      this.#closed = true;
      this.#detachSignal?.();
      this.emit('close', { code, reason: reason.toString('utf8') });
    });
  }

  static connect(options: RealtimeConnectOptions): Promise<RealtimeClient> {
    const { apiKey, signal } = options;
    const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const redact = (text: string): string => redactSecrets(text, apiKey);

    return new Promise<RealtimeClient>((resolve, reject) => {
      if (signal?.aborted) return reject(dialError({ kind: 'aborted' }, redact));
      let target: string;
      try {
        target = realtimeUrl(options.url ?? DEFAULT_REALTIME_URL, options.model ?? DEFAULT_ASSISTANT_MODEL);
      } catch (err) {
        return reject(dialError({ kind: 'invalid-url', message: (err as Error).message }, redact));
      }
      const dialling = dial(
        target,
        {
          headers: { Authorization: `Bearer ${apiKey}` },
          policy: options.outbound,
          handshakeTimeoutMs: timeoutMs,
          // Audio deltas are a few kilobytes; a message this large is a broken or hostile server.
          maxPayload: 16 * 1024 * 1024,
          refusedBodyBytes: MAX_ERROR_BODY_BYTES,
          signal,
        },
        (outcome) => (outcome.ok ? resolve(RealtimeClient.opened(outcome.socket, options)) : reject(dialError(outcome.failure, redact))),
      );
      if (!dialling.ok) reject(dialError(dialling.failure, redact));
    });
  }

  /** The session's socket is open: the client takes it, and the first event is the session's settings. */
  private static opened(ws: WebSocket, options: RealtimeConnectOptions): RealtimeClient {
    const client = new RealtimeClient(ws, options.apiKey, options.ping ?? DEFAULT_PING);
    client.#send(options.sessionUpdate);
    const { signal } = options;
    if (signal) {
      const onLateAbort = (): void => void client.close();
      signal.addEventListener('abort', onLateAbort, { once: true });
      client.#detachSignal = () => signal.removeEventListener('abort', onLateAbort);
    }
    return client;
  }

  get isOpen(): boolean {
    return !this.#closed && this.#ws.readyState === WebSocket.OPEN;
  }

  /** Streams caller audio (PCM s16le mono, 24 kHz). Returns false when the socket is not open. */
  appendAudio(pcm24k: Buffer): boolean {
    if (pcm24k.length === 0) return this.isOpen;
    if (!this.isOpen) return false;
    // Base64 needs no JSON escaping, so the frame is built directly instead of stringifying.
    return this.#audio.write(`{"type":"input_audio_buffer.append","audio":"${pcm24k.toString('base64')}"}`) === 'sent';
  }

  /** Answers a function call; the output is sent as JSON text. Follow with createResponse(). */
  sendFunctionOutput(callId: string, output: unknown): boolean {
    return this.#send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: callId, output: JSON.stringify(output ?? null) },
    });
  }

  /** Asks the model to speak now, e.g. to greet first or after a function output. */
  createResponse(instructions?: string): boolean {
    return this.#send(instructions ? { type: 'response.create', response: { instructions } } : { type: 'response.create' });
  }

  /** Tells the model how much of its audio the caller actually heard before interrupting. */
  truncate(itemId: string, contentIndex: number, audioEndMs: number): boolean {
    return this.#send({
      type: 'conversation.item.truncate',
      item_id: itemId,
      content_index: contentIndex,
      audio_end_ms: Math.max(0, Math.round(audioEndMs)),
    });
  }

  /** Closes the socket; resolves once it is closed (forcefully after a short grace period). */
  close(): Promise<void> {
    if (this.#closed || this.#ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const force = setTimeout(() => this.#ws.terminate(), CLOSE_GRACE_MS);
      force.unref();
      this.#ws.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1000, 'client closing');
    });
  }

  #send(event: ClientEvent): boolean {
    if (!this.isOpen) return false;
    this.#ws.send(JSON.stringify(event));
    return true;
  }

  #redact(text: string): string {
    return redactSecrets(text, this.#apiKey);
  }

  #emitError(error: RealtimeError): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  #emitFunctionCall(callId: string, name: string, args: string): void {
    if (this.#calledBack.has(callId)) return;
    this.#calledBack.add(callId);
    this.emit('functionCall', { callId, name, arguments: parseArguments(args) });
  }

  #functionCallsIn(response: RealtimeResponse): void {
    for (const item of response.output ?? []) {
      if (
        item.type === 'function_call' &&
        typeof item.call_id === 'string' &&
        typeof item.name === 'string' &&
        typeof item.arguments === 'string'
      ) {
        this.#emitFunctionCall(item.call_id, item.name, item.arguments);
      }
    }
  }

  #onText(text: string): void {
    const event = parseServerEvent(text);
    if (event === null || !isKnownServerEvent(event)) return;
    this.#dispatch(event);
  }

  #dispatch(event: KnownServerEvent): void {
    switch (event.type) {
      case 'response.output_audio.delta':
        this.emit('audio', {
          itemId: event.item_id,
          contentIndex: event.content_index,
          pcm: Buffer.from(event.delta, 'base64'),
        });
        return;
      case 'input_audio_buffer.speech_started':
        this.emit('speechStarted', { audioStartMs: event.audio_start_ms, itemId: event.item_id });
        return;
      case 'conversation.item.input_audio_transcription.completed': {
        const text = event.transcript.trim();
        if (text) this.emit('callerTranscript', text);
        return;
      }
      case 'response.output_audio_transcript.done': {
        const text = event.transcript.trim();
        if (text) this.emit('agentTranscript', text);
        return;
      }
      case 'response.function_call_arguments.done':
        // The GA event names the function; without a name, wait for the item or response.done.
        if (event.name) this.#emitFunctionCall(event.call_id, event.name, event.arguments);
        return;
      case 'response.output_item.done':
        this.#functionCallsIn({ output: [event.item] });
        return;
      case 'response.done':
        this.#functionCallsIn(event.response);
        this.emit('responseDone', { responseId: event.response.id, status: event.response.status });
        return;
      case 'session.updated':
        this.emit('sessionUpdated');
        return;
      case 'error': {
        const code = event.error.code || event.error.type || 'unknown_error';
        this.#emitError(new RealtimeError(code, this.#redact(event.error.message)));
        return;
      }
      case 'session.created':
        return;
    }
  }
}
