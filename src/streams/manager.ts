import type { Call, CallService, StreamConfig } from '../calls/index.js';
import { isFinal } from '../calls/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AttachmentKind, CallAttachments, TakeUp } from '../media/index.js';
import type { PingTimings } from '../socket-guard.js';
import type { OutboundPolicy } from '../outbound/index.js';
import type { StreamStatus } from './agent-stream.js';
import { CallStream, type StreamDeps } from './call-stream.js';

export interface StreamInfo {
  stream: StreamConfig | null;
  status: StreamStatus;
  error?: string;
  hint?: string;
}

/**
 * The agent stream of each call (the REST side: attach, detach, statuses): each is an attachment of
 * the call's audio (CallStream), `waiting` until the call's audio starts (the call was answered),
 * then dialled; its end follows the call, and an agent that leaves or fails hangs the call up (the
 * spec's stream effects). The registry (CallAttachments) keeps them by call, ended ones a while.
 */
export class StreamManager {
  private readonly streams: AttachmentKind<CallStream>;
  private readonly deps: StreamDeps;

  constructor(private readonly o: { calls: CallService; attachments: CallAttachments; log: Logger; ping: PingTimings; outbound: OutboundPolicy; secret: () => string }) {
    this.deps = { calls: o.calls, log: o.log, ping: o.ping, outbound: o.outbound, secret: o.secret };
    this.streams = o.attachments.kind('stream', (event) => this.takeUp(event));
  }

  async info(callId: string): Promise<StreamInfo> {
    const call = await this.o.calls.get(callId);
    return this.present(call);
  }

  private present(call: Call): StreamInfo {
    const stream = this.streams.get(call.id);
    if (stream) {
      const error = stream.error;
      return { stream: stream.config, status: stream.status, ...(error ? { error } : {}), ...(stream.hint ? { hint: stream.hint } : {}) };
    }
    // After a restart no socket survives: a stored stream is over, or still waits for its answer.
    if (!call.stream) return { stream: null, status: 'off' };
    const waiting = !isFinal(call.state) && !call.answeredAt;
    return { stream: call.stream, status: waiting ? 'waiting' : 'ended' };
  }

  /** POST /v1/calls/{id}/stream: answers a ringing incoming call, replaces any attached stream. */
  async attach(callId: string, config: StreamConfig): Promise<{ info: StreamInfo; call: Call }> {
    let call = await this.o.calls.get(callId);
    if (isFinal(call.state)) throw new GatewayError('DEVICE_OFFLINE', `The call has already ended (${call.state})`);
    const stream = new CallStream(call, config, this.deps);
    this.streams.set(callId, stream)?.stop('replaced');
    call = await this.o.calls.setStream(callId, config);
    if (call.direction === 'incoming' && call.state === 'ringing') {
      try {
        call = (await this.o.calls.act(callId, 'answer')).call;
      } catch (err) {
        this.streams.remove(callId, stream);
        await this.o.calls.setStream(callId, null);
        throw err;
      }
    }
    // A call that is already answered has its audio; one still ringing or dialling connects on `started`.
    this.streams.attachNow(callId, stream);
    this.o.log.info({ callId, deviceId: call.deviceId, status: stream.status }, 'stream attached');
    return { info: this.present(call), call };
  }

  /** DELETE /v1/calls/{id}/stream: the agent socket closes, the call goes on. */
  async detach(callId: string): Promise<void> {
    const call = await this.o.calls.get(callId);
    const stream = this.streams.get(callId);
    if (stream) {
      stream.detach();
    } else if (call.stream) {
      // Detached is `ended` (contract.md), also for a stream stored before a restart.
      this.streams.set(callId, CallStream.detached(call, call.stream, this.deps));
    }
    if (call.stream) await this.o.calls.markStreamDetached(callId);
    this.o.log.info({ callId, deviceId: call.deviceId }, 'stream detached');
  }

  /** The status of every stream it holds: those of calls in progress, and final ones kept a while after. */
  *statuses(): Generator<StreamStatus> {
    for (const stream of this.streams.values()) yield stream.status;
  }

  /** Digits the phone reported on a call, for vendor agents. */
  dtmf(callId: string, digits: string): void {
    this.streams.get(callId)?.dtmf(digits);
  }

  /**
   * A call placed with a stream waits for its audio. A live call this node did not serve (its node
   * died, or this gateway restarted) whose phone came back: its stream is opened again, and the
   * agent hears `resumed: "true"` in the start message. The media router, told first, has started
   * the call's audio already; without it, `started` connects it.
   */
  private takeUp(event: TakeUp): void {
    if (event.on === 'placed') {
      if (event.call.stream) this.streams.set(event.call.id, new CallStream(event.call, event.call.stream, this.deps));
      return;
    }
    if (event.on !== 'resumed') return;
    const { call, streamDetached } = event.resumed;
    if (!call.stream || streamDetached) return;
    const stream = new CallStream(call, call.stream, this.deps, true);
    this.streams.set(call.id, stream);
    this.o.log.info({ callId: call.id, deviceId: call.deviceId }, 'opening the agent stream again for a call taken over');
    this.streams.attachNow(call.id, stream);
  }

  close(): void {
    for (const stream of this.streams.values()) stream.stop('closing');
  }
}
