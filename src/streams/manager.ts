import type { Call, CallChange, CallService, ResumedCall, StreamConfig } from '../calls/index.js';
import { EndedCallRetention, isFinal } from '../calls/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import type { CallAudio, MediaRouter } from '../media/index.js';
import type { PingTimings } from '../socket-guard.js';
import type { OutboundPolicy } from '../outbound/index.js';
import { AgentStream, type AgentStreamEnd, type StreamStatus } from './agent-stream.js';

export interface StreamInfo {
  stream: StreamConfig | null;
  status: StreamStatus;
  error?: string;
  hint?: string;
}

/**
 * Where a call's stream is: waiting for the call's audio, dialled (its agent knows the rest), or
 * over. Over keeps only how it ended, not the agent, so an ended call holds no socket or audio.
 * Detached is over without an error (contract.md), whatever the agent had come to.
 */
type StreamLife = { state: 'waiting' } | { state: 'dialled'; agent: AgentStream } | { state: 'over'; ended: AgentStreamEnd | { end: 'detached' } };

interface StreamState {
  config: StreamConfig;
  life: StreamLife;
  hint?: string | undefined;
  /** Opened again for a call taken over (docs/cluster.md): the agent's start says `resumed: "true"`. */
  resumed?: boolean;
}

/** The status the API shows, derived from the stream's life: never stored beside it. */
function statusOf({ life }: StreamState): StreamStatus {
  if (life.state === 'waiting') return 'waiting';
  if (life.state === 'dialled') return life.agent.status;
  return life.ended.end === 'failed' ? 'error' : 'ended';
}

function errorOf({ life }: StreamState): string | undefined {
  const ended = life.state === 'dialled' ? life.agent.ended : life.state === 'over' ? life.ended : undefined;
  return ended?.end === 'failed' ? ended.error : undefined;
}

function agentOf({ life }: StreamState): AgentStream | undefined {
  return life.state === 'dialled' ? life.agent : undefined;
}

/**
 * The agent stream of each call: `waiting` until the call's audio starts (the media router's
 * `started`: the call was answered), then dialled; its end follows the call, and an agent that
 * leaves or fails hangs the call up (the spec's stream effects).
 */
export class StreamManager {
  private readonly states = new Map<string, StreamState>();
  private readonly retention = new EndedCallRetention((callId) => this.states.delete(callId));

  constructor(private readonly o: { calls: CallService; media: MediaRouter; log: Logger; ping: PingTimings; outbound: OutboundPolicy; secret: () => string }) {
    o.calls.on('change', (change) => this.onChange(change));
    o.media.on('started', (audio, call) => {
      const state = this.states.get(call.id);
      if (state?.life.state === 'waiting') this.connect(call, state, audio);
    });
    o.calls.on('dtmf', (callId, digits) => this.dtmf(callId, digits));
    o.calls.on('resumed', (resumed) => this.resume(resumed));
    o.calls.on('released', (call) => this.release(call.id));
  }

  async info(callId: string): Promise<StreamInfo> {
    const call = await this.o.calls.get(callId);
    return this.present(call);
  }

  private present(call: Call): StreamInfo {
    const state = this.states.get(call.id);
    if (state) {
      const error = errorOf(state);
      return { stream: state.config, status: statusOf(state), ...(error ? { error } : {}), ...(state.hint ? { hint: state.hint } : {}) };
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
    const previous = this.states.get(callId);
    if (previous) agentOf(previous)?.stop();
    const state: StreamState = { config, life: { state: 'waiting' } };
    this.states.set(callId, state);
    call = await this.o.calls.setStream(callId, config);
    if (call.direction === 'incoming' && call.state === 'ringing') {
      try {
        call = (await this.o.calls.act(callId, 'answer')).call;
      } catch (err) {
        this.states.delete(callId);
        await this.o.calls.setStream(callId, null);
        throw err;
      }
    }
    // A call that is already answered has its audio; one still ringing or dialling connects on `started`.
    const audio = this.o.media.get(callId);
    if (audio && state.life.state === 'waiting') this.connect(call, state, audio);
    this.o.log.info({ callId, deviceId: call.deviceId, status: statusOf(state) }, 'stream attached');
    return { info: this.present(call), call };
  }

  /** DELETE /v1/calls/{id}/stream: the agent socket closes, the call goes on. */
  async detach(callId: string): Promise<void> {
    const call = await this.o.calls.get(callId);
    const state = this.states.get(callId);
    if (state) {
      const agent = agentOf(state);
      state.life = { state: 'over', ended: { end: 'detached' } };
      agent?.stop();
    } else if (call.stream) {
      // Detached is `ended` (contract.md), also for a stream stored before a restart.
      this.states.set(callId, { config: call.stream, life: { state: 'over', ended: { end: 'detached' } } });
    }
    if (call.stream) await this.o.calls.markStreamDetached(callId);
    this.o.log.info({ callId, deviceId: call.deviceId }, 'stream detached');
  }

  /** The status of every stream it holds: those of calls in progress, and final ones kept a while after. */
  *statuses(): Generator<StreamStatus> {
    for (const state of this.states.values()) yield statusOf(state);
  }

  /** Digits the phone reported on a call, for vendor agents. */
  dtmf(callId: string, digits: string): void {
    const state = this.states.get(callId);
    if (state) agentOf(state)?.dtmf(digits);
  }

  /**
   * A live call this node did not serve (its node died, or this gateway restarted) whose phone came
   * back: its stream is opened again, and the agent hears `resumed: "true"` in the start message.
   * The media router, told first, has started the call's audio already; without it, `started` connects it.
   */
  private resume({ call, streamDetached }: ResumedCall): void {
    if (this.states.has(call.id) || !call.stream || streamDetached) return;
    const state: StreamState = { config: call.stream, life: { state: 'waiting' }, resumed: true };
    this.states.set(call.id, state);
    this.o.log.info({ callId: call.id, deviceId: call.deviceId }, 'opening the agent stream again for a call taken over');
    const audio = this.o.media.get(call.id);
    if (audio) this.connect(call, state, audio);
  }

  /** The call's phone moved to another node, which opens the stream again: this node's agent socket closes, the call goes on. */
  private release(callId: string): void {
    const state = this.states.get(callId);
    if (!state) return;
    this.states.delete(callId);
    agentOf(state)?.stop();
  }

  private connect(call: Call, state: StreamState, audio: CallAudio): void {
    const config = state.resumed ? { ...state.config, parameters: { ...state.config.parameters, resumed: 'true' } } : state.config;
    // An agent replaced or let go of (detached, the call ended) is stale: what it reports is dropped.
    const current = (): boolean => agentOf(state) === agent;
    const agent = new AgentStream(call, config, audio, this.o.log, this.o.ping, {
      hint: (text) => {
        if (current()) state.hint = text;
      },
      hangup: (reason) => {
        if (!current()) return;
        this.o.log.info({ callId: call.id, reason }, 'hanging up after the agent stream ended');
        this.o.calls.act(call.id, 'hangup').catch((err: unknown) => this.o.log.warn({ err, callId: call.id }, 'hangup after stream end failed'));
      },
    }, this.o.outbound, this.o.secret);
    state.life = { state: 'dialled', agent };
    agent.connect();
  }

  private onChange({ call, previousState }: CallChange): void {
    let state = this.states.get(call.id);
    if (!state && previousState === null && call.stream) {
      state = { config: call.stream, life: { state: 'waiting' } };
      this.states.set(call.id, state);
    }
    if (state && isFinal(call.state)) {
      const agent = agentOf(state);
      agent?.stop();
      // Keep how it ended for GET (for a while), not the agent: the socket is gone.
      if (state.life.state !== 'over') state.life = { state: 'over', ended: agent?.ended ?? { end: 'stopped' } };
      this.retention.callEnded(call.id);
    }
  }

  close(): void {
    for (const state of this.states.values()) agentOf(state)?.stop();
  }
}
