import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { BYTES_PER_SAMPLE, SAMPLE_RATE } from '../audio/index.js';
import type { Call, StreamConfig } from '../calls/index.js';
import { codecFor, type AudioCodec } from '../codecs/index.js';
import type { Logger } from '../log.js';
import { MARK_ALLOWANCE, type CallAudio, type PlayoutSource } from '../media/index.js';
import { AudioPeer, type PingTimings } from '../socket-guard.js';
import { dial, type DialFailure, type OutboundPolicy } from '../outbound/index.js';
import { signedHeaders, type SignedHeaders } from '../webhooks/index.js';

export type StreamStatus = 'off' | 'waiting' | 'connecting' | 'live' | 'ended' | 'error';

/** How a stream ended: the gateway stopped it, the agent hung up, or it failed (with why). */
export type AgentStreamEnd = { end: 'stopped' | 'hung-up' } | { end: 'failed'; error: string };

export interface AgentStreamEvents {
  /** The agent hung up (closed its socket) or the socket failed: the call should end. */
  hangup(reason: string): void;
  /** Advice for whoever set up the stream, once per stream (GET …/stream shows it). */
  hint(text: string): void;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** One agent message may carry up to about 30 s of raw audio; a larger one closes the stream. */
const MAX_AGENT_MESSAGE_BYTES = 1024 * 1024;
let nextSource = 0;

/** What a failed dial to the agent says in the stream's `error` (GET …/stream), as it always has. */
function dialFailureText(failure: DialFailure): string {
  switch (failure.kind) {
    case 'invalid-url':
      // `ws` refuses a URL it cannot dial (one stored before such URLs were refused).
      return `cannot dial the agent: ${failure.message}`;
    case 'not-allowed':
      return failure.message;
    case 'upgrade-refused':
      return `the agent refused the WebSocket upgrade with HTTP ${failure.status ?? '?'}`;
    case 'timeout':
      // The words of `ws`'s own handshake timeout, which this was before the dialer.
      return 'agent socket error: Opening handshake has timed out';
    case 'aborted':
      return 'agent socket error: the dial was given up';
    default:
      return `agent socket error: ${failure.message}`;
  }
}

/**
 * The upgrade is signed like a webhook (docs/api.md): Standard Webhooks over the URL as it is dialled,
 * in its normal form (WHATWG `href`: lower-case host, no default port, `/` for an empty path), which
 * is what an agent rebuilds from its own address and the request line; an id of its own per attempt.
 */
function upgradeHeaders(secret: string, url: string): SignedHeaders {
  return signedHeaders({ secret, id: `upg_${randomBytes(16).toString('hex')}`, timestamp: Math.floor(Date.now() / 1000), body: new URL(url).href });
}

/**
 * Where one stream is in its life. Only `live` moves audio; every way out (`finished`) happens once,
 * and says who ended it: the gateway (`stopped`), the agent (`hung-up`) or a failure (`failed`).
 */
type Lifecycle =
  | { state: 'idle' }
  | { state: 'connecting'; socket: WebSocket }
  | { state: 'live'; socket: WebSocket; peer: AudioPeer; source: PlayoutSource; stopListening: () => void }
  | ({ state: 'finished' } & AgentStreamEnd);

/**
 * One connection from the gateway to an agent's WebSocket, in the raw or the vendor (Twilio Media
 * Streams) format; the codec is the only part that knows which. The gateway is the client; it dials
 * once the call's audio has started.
 */
export class AgentStream {
  private life: Lifecycle = { state: 'idle' };
  private readonly codec: AudioCodec;
  private readonly sourceId = `stream:${++nextSource}`;
  private hinted = false;
  private skipped = 0;

  constructor(
    private readonly call: Call,
    readonly config: StreamConfig,
    private readonly audio: CallAudio,
    private readonly log: Logger,
    private readonly ping: PingTimings,
    private readonly events: AgentStreamEvents,
    private readonly outbound: OutboundPolicy,
    /** The webhook secret, read at every upgrade so that a rotated one signs the next. */
    private readonly secret: () => string,
  ) {
    this.codec = codecFor(config.format ?? 'raw');
  }

  /** Its status for the API, read from where it is in its life (the one source of truth). */
  get status(): StreamStatus {
    switch (this.life.state) {
      case 'idle':
        return 'waiting';
      case 'connecting':
      case 'live':
        return this.life.state;
      case 'finished':
        return this.life.end === 'failed' ? 'error' : 'ended';
    }
  }

  /** How it ended; undefined while it has not. */
  get ended(): AgentStreamEnd | undefined {
    if (this.life.state !== 'finished') return undefined;
    return this.life.end === 'failed' ? { end: 'failed', error: this.life.error } : { end: this.life.end };
  }

  connect(): void {
    if (this.life.state !== 'idle') return;
    const { call, log } = this;
    let headers;
    try {
      // A URL that is not one fails here, with the URL parser's words, as it did at the outbound check.
      headers = upgradeHeaders(this.secret(), this.config.url);
    } catch (err) {
      return this.fail((err as Error).message);
    }
    const dialling = dial(this.config.url, { headers, policy: this.outbound, handshakeTimeoutMs: CONNECT_TIMEOUT_MS, maxPayload: MAX_AGENT_MESSAGE_BYTES }, (outcome) => {
      if (!outcome.ok) return this.fail(dialFailureText(outcome.failure));
      const { socket, transport } = outcome;
      socket.on('error', (err) => this.fail(`agent socket error: ${err.message}`));
      socket.on('close', (code) => {
        if (this.life.state === 'finished') return;
        // No close frame: the agent crashed or its connection was reset, which is no hang-up.
        if (code === 1006) return this.fail('the connection to the agent was lost without a close frame (1006)');
        this.hungUp();
        log.info({ callId: call.id, code }, 'agent closed the stream');
      });
      socket.on('message', (data, isBinary) => this.fromAgent(data as Buffer, isBinary));
      this.opened(socket, transport);
    });
    if (!dialling.ok) return this.fail(dialFailureText(dialling.failure));
    this.life = { state: 'connecting', socket: dialling.socket };
  }

  private opened(socket: WebSocket, transport: Duplex | undefined): void {
    if (this.life.state !== 'connecting') return;
    // `ws` emits `upgrade` before `open`, always; without the TCP socket no write could be bounded.
    if (!transport) return this.fail('the agent socket opened without an upgrade');
    const { call, config, codec } = this;
    const peer = new AudioPeer(socket, { ...this.ping, transport, maxBufferedBytes: codec.bytesPerSecond, onCutOff: (reason) => this.fail(`the agent ${reason}`) });
    for (const message of codec.start({ callId: call.id, direction: call.direction, remoteNumber: call.remoteNumber, deviceId: call.deviceId, parameters: config.parameters })) peer.send(message);
    const source = this.audio.source(this.sourceId, {
      markPlayed: (name, cleared) => {
        // Stopped (the call ended, the stream was detached): the audio before its pending marks never
        // played, and the agent is told `stop`, not that it was heard. A failing stream does echo them.
        if (this.life.state === 'finished' && this.life.end === 'stopped') return;
        const told = codec.markPlayed(name, cleared);
        if (told !== null) peer.send(told);
      },
      overflow: () => this.log.warn({ callId: call.id }, 'agent sent more than two minutes of unplayed audio; dropping the excess'),
    });
    const stopListening = this.audio.listen((frame) => peer.send(codec.audio(frame)));
    this.life = { state: 'live', socket, peer, source, stopListening };
    this.log.info({ callId: call.id, deviceId: call.deviceId, format: codec.format }, 'agent stream live');
  }

  /** Keypad digits the phone reported, forwarded where the format has a message for them (vendor: Twilio's `dtmf`). */
  dtmf(digits: string): void {
    if (this.life.state !== 'live') return;
    for (const digit of digits) {
      const message = this.codec.dtmf(digit);
      if (message === null) return;
      this.life.peer.send(message);
    }
  }

  private fromAgent(data: Buffer, isBinary: boolean): void {
    const life = this.life;
    if (life.state !== 'live') return;
    const message = this.codec.decode(data, isBinary);
    switch (message.kind) {
      case 'audio':
        return life.source.push(message.pcm);
      case 'clear':
        return life.source.clear();
      case 'mark':
        return this.mark(life.source, message.name);
      case 'close':
        // jambonz's `disconnect`: the agent hangs up as if it had closed its socket.
        this.log.info({ callId: this.call.id }, 'agent asked to close the stream');
        this.hungUp();
        life.socket.close(1000, 'disconnect');
        setTimeout(() => life.socket.terminate(), 2000).unref();
        return;
      case 'ignored':
        if (message.hint) return this.hintOnce(message.hint);
        return this.skip(message.why);
    }
  }

  /**
   * Queues a mark behind the audio before it. Marks are bounded by that audio (see maxPendingMarks),
   * so one per audio chunk always fits; an agent past the bound is broken and the stream fails
   * loudly rather than losing a mark the agent would wait for forever.
   */
  private mark(source: PlayoutSource, name: string): void {
    const full = source.mark(name);
    if (!full) return;
    const queuedSeconds = (full.queuedBytes / (SAMPLE_RATE * BYTES_PER_SAMPLE)).toFixed(1);
    this.fail(`the agent sent more marks than the gateway keeps: ${full.waiting} were waiting for ${queuedSeconds} s of audio (at most ${MARK_ALLOWANCE} plus one per 10 ms of queued audio)`);
  }

  private hintOnce(hint: string): void {
    if (this.hinted) return;
    this.hinted = true;
    this.log.warn({ callId: this.call.id, deviceId: this.call.deviceId, hint }, 'agent stream format looks wrong');
    this.events.hint(hint);
  }

  /** Logs the first skipped messages of a stream, then every thousandth, so a flood cannot fill the disk. */
  private skip(why: string): void {
    this.skipped += 1;
    if (this.skipped <= 10 || this.skipped % 1000 === 0) this.log.warn({ callId: this.call.id, why, skipped: this.skipped }, 'agent message skipped');
  }

  /** The agent hung up (closed its socket, or asked to): status `ended`, and the call is hung up. */
  private hungUp(): void {
    if (this.finish({ end: 'hung-up' }) === null) return;
    this.events.hangup('the agent closed its stream');
  }

  /** The stream broke: status `error` with its reason, the socket closed, and the call hung up (the spec's socket-error rule). */
  private fail(error: string): void {
    const socket = this.finish({ end: 'failed', error });
    if (socket === null) return;
    this.log.warn({ callId: this.call.id, error }, 'agent stream failed');
    this.events.hangup(error);
    if (socket?.readyState === WebSocket.OPEN) {
      socket.close(1011, 'stream failed');
      setTimeout(() => socket.terminate(), 2000).unref();
    } else if (socket?.readyState === WebSocket.CONNECTING) {
      socket.terminate();
    }
  }

  /** Sends stop and closes, without hanging up the call (the call ended, or the stream was detached). */
  stop(): void {
    const peer = this.life.state === 'live' ? this.life.peer : undefined;
    const socket = this.finish({ end: 'stopped' });
    if (socket === null) return;
    if (peer?.send(this.codec.stop())) {
      socket?.close(1000, 'stream stopped');
      setTimeout(() => socket?.terminate(), 2000).unref();
    } else {
      socket?.terminate();
    }
  }

  /** Moves to `finished` and lets go of the call's audio; the socket it had (undefined if none), or null when it had already finished. */
  private finish(end: AgentStreamEnd): WebSocket | undefined | null {
    const life = this.life;
    if (life.state === 'finished') return null;
    this.life = { state: 'finished', ...end };
    if (life.state === 'live') {
      life.stopListening();
      life.source.remove();
    }
    return life.state === 'idle' ? undefined : life.socket;
  }
}
