import WebSocket from 'ws';
import { BYTES_PER_SAMPLE, FRAME_MS, MulawUpsampler, PCM_FORMAT, pcm16kToMulaw8k, SAMPLE_RATE } from '../audio/index.js';
import type { Call, StreamConfig } from '../calls/index.js';
import type { Logger } from '../log.js';
import { MARK_ALLOWANCE, maxPendingMarks, type CallAudio } from '../media/index.js';
import { AudioPeer, type PingTimings } from '../socket-guard.js';
import type { OutboundPolicy } from '../outbound/index.js';
import { VendorMessages } from './vendor.js';

export type StreamStatus = 'off' | 'waiting' | 'connecting' | 'live' | 'ended' | 'error';

export interface AgentStreamEvents {
  status(status: StreamStatus, error?: string): void;
  /** The agent hung up (closed its socket) or the socket failed: the call should end. */
  hangup(reason: string): void;
  /** Advice for whoever set up the stream, once per stream (GET …/stream shows it). */
  hint(text: string): void;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** One agent message may carry up to about 30 s of raw audio; a larger one closes the stream. */
const MAX_AGENT_MESSAGE_BYTES = 1024 * 1024;
const MAX_MARK_NAME = 256;
/** A vendor `media` message of one 20 ms frame: 216 characters of base64 in about 180 of JSON. */
const VENDOR_MEDIA_MESSAGE_BYTES = 400;
/** About one second of what the gateway sends an agent, in each format. */
const ONE_SECOND_BYTES = { raw: SAMPLE_RATE * BYTES_PER_SAMPLE, vendor: (1000 / FRAME_MS) * VENDOR_MEDIA_MESSAGE_BYTES } as const;
/** Events of Twilio Media Streams: a raw stream that receives them is talking to a vendor-format agent. */
const TWILIO_EVENTS = new Set(['connected', 'start', 'media', 'mark', 'clear', 'stop', 'dtmf']);
export const TWILIO_HINT = 'looks like Twilio Media Streams: set stream.format to vendor';
let nextSource = 0;

/**
 * One connection from the gateway to an agent's WebSocket, in the raw or the vendor (Twilio Media
 * Streams) format. The gateway is the client; it dials once the call is answered.
 */
export class AgentStream {
  private socket: WebSocket | undefined;
  private peer: AudioPeer | undefined;
  private vendor: VendorMessages | undefined;
  private readonly upsampler = new MulawUpsampler();
  private readonly sourceId = `stream:${++nextSource}`;
  private source: ReturnType<CallAudio['source']> | undefined;
  private stopListening: (() => void) | undefined;
  private closingByUs = false;
  private finished = false;
  private hinted = false;
  private skipped = 0;

  constructor(
    private readonly call: Call,
    readonly config: StreamConfig,
    private readonly audio: CallAudio | undefined,
    private readonly log: Logger,
    private readonly ping: PingTimings,
    private readonly events: AgentStreamEvents,
    private readonly outbound: OutboundPolicy,
  ) {}

  private get format(): 'raw' | 'vendor' {
    return this.config.format ?? 'raw';
  }

  connect(): void {
    const { call, log } = this;
    this.events.status('connecting');
    let lookup;
    try {
      ({ lookup } = this.outbound.socketOptions(this.config.url));
    } catch (err) {
      return this.fail((err as Error).message);
    }
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.config.url, { handshakeTimeout: CONNECT_TIMEOUT_MS, perMessageDeflate: false, maxPayload: MAX_AGENT_MESSAGE_BYTES, lookup });
    } catch (err) {
      // `ws` throws at once for a URL it cannot dial (one stored before such URLs were refused).
      return this.fail(`cannot dial the agent: ${(err as Error).message}`);
    }
    this.socket = socket;
    socket.on('open', () => this.opened());
    socket.on('unexpected-response', (_req, res) => {
      this.fail(`the agent refused the WebSocket upgrade with HTTP ${res.statusCode ?? '?'}`);
      socket.terminate();
    });
    socket.on('error', (err: Error & { code?: string }) => this.fail(err.code === 'OUTBOUND_REFUSED' ? err.message : `agent socket error: ${err.message}`));
    socket.on('close', (code) => {
      this.detachAudio();
      if (this.finished) return;
      // No close frame: the agent crashed or its connection was reset, which is no hang-up.
      if (code === 1006) return this.fail('the connection to the agent was lost without a close frame (1006)');
      this.finished = true;
      log.info({ callId: call.id, code }, 'agent closed the stream');
      this.events.status('ended');
      this.events.hangup('the agent closed its stream');
    });
    socket.on('message', (data, isBinary) => this.fromAgent(data as Buffer, isBinary));
  }

  private opened(): void {
    const { call, config } = this;
    const socket = this.socket;
    if (!socket) return;
    const peer = new AudioPeer(socket, { ...this.ping, maxBufferedBytes: ONE_SECOND_BYTES[this.format], onCutOff: (reason) => this.fail(`the agent ${reason}`) });
    this.peer = peer;
    const base = { callId: call.id, direction: call.direction, remoteNumber: call.remoteNumber, deviceId: call.deviceId };
    if (this.format === 'vendor') {
      this.vendor = new VendorMessages(call.id);
      peer.send(JSON.stringify(this.vendor.connected()));
      peer.send(JSON.stringify(this.vendor.start({ ...base, ...config.parameters })));
    } else {
      peer.send(JSON.stringify({ type: 'start', ...base, ...config.parameters, format: PCM_FORMAT }));
    }
    this.log.info({ callId: call.id, deviceId: call.deviceId, format: this.format }, 'agent stream live');
    this.events.status('live');
    if (this.audio) {
      this.source = this.audio.source(
        this.sourceId,
        (name) => this.markPlayed(name),
        () => this.log.warn({ callId: this.call.id }, 'agent sent more than two minutes of unplayed audio; dropping the excess'),
      );
      this.stopListening = this.audio.listen((frame) => this.toAgent(frame));
    }
  }

  /** False when the frame was not sent (the agent was cut off, or its socket is closing). */
  private toAgent(frame: Buffer): boolean {
    const peer = this.peer;
    if (!peer) return false;
    return peer.send(this.vendor ? JSON.stringify(this.vendor.media(pcm16kToMulaw8k(frame))) : frame);
  }

  private markPlayed(name: string): void {
    if (this.vendor) this.peer?.send(JSON.stringify(this.vendor.mark(name)));
  }

  /** Keypad digits the phone reported, forwarded as Twilio's `dtmf` event (vendor format only). */
  dtmf(digits: string): void {
    const vendor = this.vendor;
    if (!vendor) return;
    for (const digit of digits) this.peer?.send(JSON.stringify(vendor.dtmf(digit)));
  }

  private fromAgent(data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      if (this.format === 'raw') this.source?.push(data);
      else this.skip('binary frame on a vendor stream');
      return;
    }
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(data.toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null) return this.skip('not a JSON object');
      message = parsed as Record<string, unknown>;
    } catch {
      return this.skip('not JSON');
    }
    if (this.format === 'raw') {
      if (message.type === 'clear') this.source?.clear();
      else if (message.type === undefined && typeof message.event === 'string' && TWILIO_EVENTS.has(message.event)) this.hintOnce(TWILIO_HINT);
      else this.skip(`unknown raw message type ${String(message.type)}`);
      return;
    }
    switch (message.event) {
      case 'media': {
        const payload = (message.media as { payload?: unknown } | undefined)?.payload;
        if (typeof payload !== 'string') return this.skip('media without payload');
        this.source?.push(this.upsampler.push(Buffer.from(payload, 'base64')));
        return;
      }
      case 'mark': {
        const name = (message.mark as { name?: unknown } | undefined)?.name;
        if (typeof name !== 'string') return this.skip('mark without name');
        if (name.length > MAX_MARK_NAME) return this.skip(`mark name over ${MAX_MARK_NAME} characters`);
        return this.mark(name);
      }
      case 'clear':
        this.source?.clear();
        // The next answer starts afresh: no interpolation from the last sample of the dropped one.
        this.upsampler.reset();
        return;
      default:
        this.skip(`unknown vendor event ${String(message.event)}`);
    }
  }

  /**
   * Queues a mark behind the audio before it. Marks are bounded by that audio (see maxPendingMarks),
   * so one per audio chunk always fits; an agent past the bound is broken and the stream fails
   * loudly rather than losing a mark the agent would wait for forever.
   */
  private mark(name: string): void {
    const playout = this.audio?.playout;
    if (playout) {
      const waiting = playout.pendingMarks(this.sourceId);
      const queuedBytes = playout.pendingBytes(this.sourceId);
      if (waiting >= maxPendingMarks(queuedBytes)) {
        const queuedSeconds = (queuedBytes / (SAMPLE_RATE * BYTES_PER_SAMPLE)).toFixed(1);
        return this.fail(`the agent sent more marks than the gateway keeps: ${waiting} were waiting for ${queuedSeconds} s of audio (at most ${MARK_ALLOWANCE} plus one per 10 ms of queued audio)`);
      }
    }
    this.source?.mark(name);
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

  /** The stream broke: status `error` with its reason, the socket closed, and the call hung up (the spec's socket-error rule). */
  private fail(error: string): void {
    if (this.finished) return;
    this.finished = true;
    this.detachAudio();
    this.log.warn({ callId: this.call.id, error }, 'agent stream failed');
    this.events.status('error', error);
    this.events.hangup(error);
    const socket = this.socket;
    if (socket?.readyState === WebSocket.OPEN) {
      socket.close(1011, 'stream failed');
      setTimeout(() => socket.terminate(), 2000).unref();
    } else if (socket?.readyState === WebSocket.CONNECTING) {
      socket.terminate();
    }
  }

  /** Sends stop and closes, without hanging up the call (the call ended, or the stream was detached). */
  stop(): void {
    if (this.finished) return;
    this.finished = true;
    this.closingByUs = true;
    this.detachAudio();
    const socket = this.socket;
    if (this.peer?.send(JSON.stringify(this.vendor ? this.vendor.stop() : { type: 'stop', callId: this.call.id }))) {
      socket?.close(1000, 'stream stopped');
      setTimeout(() => socket?.terminate(), 2000).unref();
    } else {
      socket?.terminate();
    }
    this.events.status('ended');
  }

  private detachAudio(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.source?.remove();
    this.source = undefined;
  }

  get closedByGateway(): boolean {
    return this.closingByUs;
  }
}
