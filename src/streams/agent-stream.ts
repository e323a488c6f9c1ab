import WebSocket from 'ws';
import { MulawUpsampler, PCM_FORMAT, pcm16kToMulaw8k } from '../audio/index.js';
import type { Call, StreamConfig } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { CallAudio } from '../media/index.js';
import type { OutboundPolicy } from '../outbound/index.js';
import { VendorMessages } from './vendor.js';

export type StreamStatus = 'off' | 'waiting' | 'connecting' | 'live' | 'ended' | 'error';

export interface AgentStreamEvents {
  status(status: StreamStatus, error?: string): void;
  /** The agent hung up (closed its socket) or the socket failed: the call should end. */
  hangup(reason: string): void;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** One agent message may carry up to about 30 s of raw audio; a larger one closes the stream. */
const MAX_AGENT_MESSAGE_BYTES = 1024 * 1024;
/** Marks waiting for their audio to play, per stream, and the longest name echoed back. */
const MAX_PENDING_MARKS = 1000;
const MAX_MARK_NAME = 256;
let nextSource = 0;

/**
 * One connection from the gateway to an agent's WebSocket, in the raw or the vendor (Twilio Media
 * Streams) format. The gateway is the client; it dials once the call is answered.
 */
export class AgentStream {
  private socket: WebSocket | undefined;
  private vendor: VendorMessages | undefined;
  private readonly upsampler = new MulawUpsampler();
  private readonly sourceId = `stream:${++nextSource}`;
  private source: ReturnType<CallAudio['source']> | undefined;
  private stopListening: (() => void) | undefined;
  private closingByUs = false;
  private finished = false;

  constructor(
    private readonly call: Call,
    readonly config: StreamConfig,
    private readonly audio: CallAudio | undefined,
    private readonly log: Logger,
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
    const socket = new WebSocket(this.config.url, { handshakeTimeout: CONNECT_TIMEOUT_MS, perMessageDeflate: false, maxPayload: MAX_AGENT_MESSAGE_BYTES, lookup });
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
    const base = { callId: call.id, direction: call.direction, remoteNumber: call.remoteNumber, deviceId: call.deviceId };
    if (this.format === 'vendor') {
      this.vendor = new VendorMessages(call.id);
      socket.send(JSON.stringify(this.vendor.connected()));
      socket.send(JSON.stringify(this.vendor.start({ ...base, ...config.parameters })));
    } else {
      socket.send(JSON.stringify({ type: 'start', ...base, ...config.parameters, format: PCM_FORMAT }));
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

  private toAgent(frame: Buffer): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (this.vendor) socket.send(JSON.stringify(this.vendor.media(pcm16kToMulaw8k(frame))));
    else socket.send(frame, { binary: true });
  }

  private markPlayed(name: string): void {
    if (this.vendor && this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(this.vendor.mark(name)));
  }

  /** Keypad digits the phone reported, forwarded as Twilio's `dtmf` event (vendor format only). */
  dtmf(digits: string): void {
    if (!this.vendor || this.socket?.readyState !== WebSocket.OPEN) return;
    for (const digit of digits) this.socket.send(JSON.stringify(this.vendor.dtmf(digit)));
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
        if ((this.audio?.playout.pendingMarks(this.sourceId) ?? 0) >= MAX_PENDING_MARKS) return this.skip(`more than ${MAX_PENDING_MARKS} marks waiting`);
        this.source?.mark(name);
        return;
      }
      case 'clear':
        this.source?.clear();
        return;
      default:
        this.skip(`unknown vendor event ${String(message.event)}`);
    }
  }

  private skipped = 0;

  /** Logs the first skipped messages of a stream, then every thousandth, so a flood cannot fill the disk. */
  private skip(why: string): void {
    this.skipped += 1;
    if (this.skipped <= 10 || this.skipped % 1000 === 0) this.log.warn({ callId: this.call.id, why, skipped: this.skipped }, 'agent message skipped');
  }

  private fail(error: string): void {
    if (this.finished) return;
    this.finished = true;
    this.detachAudio();
    this.log.warn({ callId: this.call.id, error }, 'agent stream failed');
    this.events.status('error', error);
    this.events.hangup(error);
  }

  /** Sends stop and closes, without hanging up the call (the call ended, or the stream was detached). */
  stop(): void {
    if (this.finished) return;
    this.finished = true;
    this.closingByUs = true;
    this.detachAudio();
    const socket = this.socket;
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(this.vendor ? this.vendor.stop() : { type: 'stop', callId: this.call.id }));
      socket.close(1000, 'stream stopped');
      setTimeout(() => socket.terminate(), 2000).unref();
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
