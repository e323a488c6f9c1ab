import type { Call, CallService, StreamConfig } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { CallAttachment, CallAudio, StopReason } from '../media/index.js';
import type { OutboundPolicy } from '../outbound/index.js';
import type { PingTimings } from '../socket-guard.js';
import { AgentStream, type AgentStreamEnd, type StreamStatus } from './agent-stream.js';

/** What every call's stream needs to dial its agent and to hang the call up when the agent leaves. */
export interface StreamDeps {
  calls: CallService;
  log: Logger;
  ping: PingTimings;
  outbound: OutboundPolicy;
  secret: () => string;
}

/**
 * Where a call's stream is: waiting for the call's audio, dialled (its agent knows the rest), or
 * over. Over keeps only how it ended, not the agent, so an ended call holds no socket or audio.
 * Detached is over without an error (contract.md), whatever the agent had come to.
 */
type StreamLife = { state: 'waiting' } | { state: 'dialled'; agent: AgentStream } | { state: 'over'; ended: AgentStreamEnd | { end: 'detached' } };

/**
 * The stream of one call, as an attachment of the call's audio (CallAttachments): `waiting` until
 * the call's audio is there (it was answered), then dialled; stopped when the call ends, is let
 * go of, or the stream is replaced or detached.
 */
export class CallStream implements CallAttachment<StreamStatus> {
  private life: StreamLife;
  /** Advice for whoever set up the stream (GET …/stream shows it). */
  hint: string | undefined;

  constructor(
    private readonly call: Call,
    readonly config: StreamConfig,
    private readonly deps: StreamDeps,
    /** Opened again for a call taken over (docs/cluster.md): the agent's start says `resumed: "true"`. */
    private readonly resumed = false,
    life: StreamLife = { state: 'waiting' },
  ) {
    this.life = life;
  }

  /** A stream detached (DELETE …/stream) with no stream object here, such as one stored before a restart. */
  static detached(call: Call, config: StreamConfig, deps: StreamDeps): CallStream {
    return new CallStream(call, config, deps, false, { state: 'over', ended: { end: 'detached' } });
  }

  /** The status the API shows, derived from the stream's life: never stored beside it. */
  get status(): StreamStatus {
    const { life } = this;
    if (life.state === 'waiting') return 'waiting';
    if (life.state === 'dialled') return life.agent.status;
    return life.ended.end === 'failed' ? 'error' : 'ended';
  }

  get error(): string | undefined {
    const { life } = this;
    const ended = life.state === 'dialled' ? life.agent.ended : life.state === 'over' ? life.ended : undefined;
    return ended?.end === 'failed' ? ended.error : undefined;
  }

  private get agent(): AgentStream | undefined {
    return this.life.state === 'dialled' ? this.life.agent : undefined;
  }

  /** The call's audio is there: a waiting stream dials its agent. */
  attach(audio: CallAudio): void {
    if (this.life.state !== 'waiting') return;
    const { call, config, deps } = this;
    const dialled = this.resumed ? { ...config, parameters: { ...config.parameters, resumed: 'true' } } : config;
    // An agent replaced or let go of (detached, the call ended) is stale: what it reports is dropped.
    const current = (): boolean => this.agent === agent;
    const agent = new AgentStream(call, dialled, audio, deps.log, deps.ping, {
      hint: (text) => {
        if (current()) this.hint = text;
      },
      hangup: (reason) => {
        if (!current()) return;
        deps.log.info({ callId: call.id, reason }, 'hanging up after the agent stream ended');
        deps.calls.act(call.id, 'hangup').catch((err: unknown) => deps.log.warn({ err, callId: call.id }, 'hangup after stream end failed'));
      },
    }, deps.outbound, deps.secret);
    this.life = { state: 'dialled', agent };
    agent.connect();
  }

  /** The agent socket closes (`stop`, not a hang-up); the stream keeps how it ended, not the agent. */
  stop(_reason: StopReason): void {
    const agent = this.agent;
    agent?.stop();
    if (this.life.state !== 'over') this.life = { state: 'over', ended: agent?.ended ?? { end: 'stopped' } };
  }

  /** DELETE …/stream: over and `ended`, whatever the agent had come to; its socket closes, the call goes on. */
  detach(): void {
    const agent = this.agent;
    this.life = { state: 'over', ended: { end: 'detached' } };
    agent?.stop();
  }

  /** Keypad digits for a dialled agent (vendor: Twilio's `dtmf`). */
  dtmf(digits: string): void {
    this.agent?.dtmf(digits);
  }
}
