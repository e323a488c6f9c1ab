import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { BYTES_PER_SAMPLE, FRAME_BYTES, SAMPLE_RATE } from '../audio/constants.js';
import { AudioRecorder, type ReceivedStats } from './audio-recorder.js';
import { audioSourceFactory, DEFAULT_AUDIO, writeStamp, type AudioSource } from './audio-source.js';
import { decideCommand, FINAL_STATES, type SimCall } from './commands.js';
import { FrameClock } from './frame-clock.js';
import { SimulatedPhoneConnection } from './phone-connection.js';
import type {
  AckMessage,
  PhoneCallState,
  CommandMessage,
  EventAckMessage,
  EventMessage,
  HelloMessage,
  PhoneEventName,
} from './protocol.js';
import type { AckBehaviour, DialOutcome, PhoneSimulatorOptions } from './types.js';

/** Above this much unsent audio the phone drops frames instead of queueing them (1 s). */
const MAX_BUFFERED_BYTES = SAMPLE_RATE * BYTES_PER_SAMPLE;

/**
 * Plays the phone side of phone-protocol.md: acts on commands, reports call events through an
 * outbox that survives dropped sockets, and sends and records call audio.
 */
export class PhoneSimulator extends SimulatedPhoneConnection {
  /** Every command received, oldest first. */
  readonly commands: CommandMessage[] = [];
  /** Every ack sent, oldest first. */
  readonly acks: AckMessage[] = [];
  /** Every protocol event created, oldest first. */
  readonly events: EventMessage[] = [];
  /** All DTMF digits received, concatenated. */
  dtmfDigits = '';
  /** How the phone answers commands; may be changed at any time. */
  ackBehaviour: AckBehaviour;
  /** How the next dials end; may be changed at any time. */
  dial: { outcome: DialOutcome; ringMs: number; failReason: string };

  private call: SimCall | null = null;
  private dialTimer: NodeJS.Timeout | null = null;
  private readonly outboxQueue: EventMessage[] = [];
  private readonly pendingRings = new Map<string, (callId: string) => void>();
  private readonly newSource: (() => AudioSource) | null;
  private source: AudioSource | null = null;
  private sourceCall: SimCall | null = null;
  private readonly clock = new FrameClock(() => this.sendFrame());
  private readonly recorder: AudioRecorder;
  private sentFrames = 0;
  private droppedFrames = 0;

  constructor(opts: PhoneSimulatorOptions) {
    super(opts);
    this.ackBehaviour = opts.ackBehaviour ?? 'ok';
    this.dial = {
      outcome: opts.dial?.outcome ?? 'answer',
      ringMs: opts.dial?.ringMs ?? 300,
      failReason: opts.dial?.failReason ?? 'simulated failure',
    };
    this.newSource = audioSourceFactory(opts.audio ?? DEFAULT_AUDIO);
    this.recorder = new AudioRecorder({ capMs: opts.receiveCapMs ?? 60_000 });
  }

  get currentCall(): Readonly<SimCall> | null {
    return this.call ? { ...this.call } : null;
  }

  /** Events not yet acknowledged by the gateway (sent, or waiting for a socket), oldest first. */
  get outbox(): readonly EventMessage[] {
    return [...this.outboxQueue];
  }

  get outboxSize(): number {
    return this.outboxQueue.length;
  }

  get framesSent(): number {
    return this.sentFrames;
  }

  /** Frames not sent because the socket already had 1 s of audio queued. */
  get framesDropped(): number {
    return this.droppedFrames;
  }

  get received(): ReceivedStats {
    return this.recorder.stats();
  }

  /** The PCM the gateway sent into calls (up to `receiveCapMs`). */
  receivedAudio(): Buffer {
    return this.recorder.audio();
  }

  resetReceived(): void {
    this.recorder.reset();
  }

  /** Disconnects and frees every timer; pending waitFor() calls reject. The outbox is kept. */
  async stop(): Promise<void> {
    this.clearDialTimer();
    this.clock.stop();
    await this.stopConnection();
  }

  close(): Promise<void> {
    return this.stop();
  }

  /** Starts an incoming call; resolves with the callId the gateway names in the `event.ack`. */
  ringIncoming(remoteNumber: string): Promise<string> {
    if (this.call) return Promise.reject(new Error(`DEVICE_BUSY: the phone already has a call (${this.call.state})`));
    const call: SimCall = { nativeCallId: newNativeCallId(), direction: 'incoming', remoteNumber, state: 'ringing' };
    this.call = call;
    return new Promise((resolve) => {
      this.callEvent(call, 'call.ringing', 'ringing', {}, (eventId) => this.pendingRings.set(eventId, resolve));
    });
  }

  /** The remote party hangs up (cause `missed` while an incoming call still rings, else `remote`). */
  remoteHangup(): void {
    const call = this.requireCall('remoteHangup', () => true);
    const missed = call.direction === 'incoming' && call.state === 'ringing';
    this.callEvent(call, 'call.disconnected', 'ended', { cause: missed ? 'missed' : 'remote' });
  }

  /**
   * Sends a self-test report (protocol extension 1.3) on the welcomed socket: `report`, or one of
   * the simulator's own facts. Returns what was sent; throws while offline (the app keeps its latest
   * report until it is welcomed; the simulator leaves that to the test).
   */
  diagnostics(report?: Record<string, unknown>): Record<string, unknown> {
    if (!this.socket) throw new Error('diagnostics: the phone is not connected');
    const health = this.currentHealth();
    const sent = report ?? {
      generatedAt: new Date().toISOString(),
      trigger: 'manual',
      app: { version: health.appVersion },
      device: { manufacturer: 'Voice Gateway', model: health.model, release: health.android },
      checks: [{ name: 'gateway_socket', ok: true, detail: 'connected' }],
      gateway: { link: 'connected', lastError: null },
      helper: { state: health.audio, uid: null, capabilities: health.audioCapabilities ?? null, diagnostics: null },
    };
    this.send(this.socket, { type: 'diagnostics', version: 1, report: sent });
    return sent;
  }

  /** The remote party presses keys on an active call (protocol extension 1.1 `dtmf`). */
  remotePressDigits(digits: string): void {
    const call = this.requireCall('remotePressDigits', (c) => c.state === 'active');
    if (this.socket) this.send(this.socket, { type: 'dtmf', nativeCallId: call.nativeCallId, ...(call.callId ? { callId: call.callId } : {}), digits });
  }

  /** The callee picks up an outgoing call that is still dialing (dial outcome `manual`). */
  remoteAnswer(): void {
    const call = this.requireCall('remoteAnswer', (c) => c.direction === 'outgoing' && c.state === 'dialing');
    this.clearDialTimer();
    this.callEvent(call, 'call.active', 'active');
  }

  /** The callee is busy: the dialing outgoing call ends with cause `busy`. */
  remoteBusy(): void {
    const call = this.requireCall('remoteBusy', (c) => c.direction === 'outgoing' && c.state === 'dialing');
    this.clearDialTimer();
    this.callEvent(call, 'call.disconnected', 'ended', { cause: 'busy' });
  }

  /** Forgets the current call without any event (the gateway should reconcile on the next hello). */
  endCallSilently(): void {
    this.clearDialTimer();
    this.call = null;
    this.updateAudio();
  }

  protected hello(): HelloMessage {
    const call = this.call;
    const hello: HelloMessage = { type: 'hello', appVersion: this.health.appVersion };
    if (call) {
      hello.call = { nativeCallId: call.nativeCallId, ...(call.callId !== undefined ? { callId: call.callId } : {}), state: call.state };
    }
    return hello;
  }

  protected onReady(ws: WebSocket): void {
    for (const ev of this.outboxQueue) this.send(ws, ev);
    this.updateAudio();
  }

  protected onSocketGone(): void {
    this.updateAudio();
  }

  protected onAudio(frame: Buffer): void {
    this.recorder.record(frame, this.call?.state === 'active');
    this.fire('audio', frame);
  }

  private requireCall(what: string, fits: (c: SimCall) => boolean): SimCall {
    const call = this.call;
    if (!call || !fits(call)) throw new Error(`${what}: no fitting call (current: ${call ? `${call.direction} ${call.state}` : 'none'})`);
    return call;
  }

  protected onCommand(ws: WebSocket, cmd: CommandMessage): void {
    this.commands.push(cmd);
    this.log.info({ commandId: cmd.commandId, action: cmd.action, callId: cmd.callId }, 'command');
    this.fire('command', cmd);
    const behaviour = this.ackBehaviour;
    if (behaviour === 'silent') return;
    if (behaviour !== 'ok') return this.sendAck(ws, cmd, { code: behaviour.code, message: behaviour.message });
    const decision = decideCommand(this.call, cmd, this.health.sims);
    if (!decision.ok) return this.sendAck(ws, cmd, decision.error);
    this.sendAck(ws, cmd);
    const effect = decision.effect;
    if (effect.kind === 'dial') return this.startDial(effect.callId, effect.to, effect.sim);
    const call = this.call;
    if (!call) return;
    call.callId ??= cmd.callId;
    if (effect.kind === 'event') {
      this.callEvent(call, effect.event, effect.state, effect.payload);
    } else {
      this.dtmfDigits += effect.digits;
      this.fire('dtmf', { digits: effect.digits, callId: call.callId });
    }
  }

  private sendAck(ws: WebSocket, cmd: CommandMessage, error?: { code: string; message: string }): void {
    const ack: AckMessage = { type: 'ack', commandId: cmd.commandId, ok: !error, ...(error ? { error } : {}) };
    this.send(ws, ack);
    this.acks.push(ack);
    this.fire('ack', ack);
  }

  private startDial(callId: string, to: string, sim: number | undefined): void {
    const call: SimCall = { nativeCallId: newNativeCallId(), callId, direction: 'outgoing', remoteNumber: to, state: 'dialing', ...(sim !== undefined ? { sim } : {}) };
    this.call = call;
    // Extension 1.4: the dialing event names the slot the call went out on.
    this.callEvent(call, 'call.dialing', 'dialing', sim !== undefined ? { sim } : {});
    const { outcome, ringMs, failReason } = this.dial;
    if (outcome === 'manual') return;
    this.dialTimer = setTimeout(() => {
      this.dialTimer = null;
      if (this.call !== call || call.state !== 'dialing') return;
      if (outcome === 'answer') this.callEvent(call, 'call.active', 'active');
      else if (outcome === 'busy') this.callEvent(call, 'call.disconnected', 'ended', { cause: 'busy' });
      else if (outcome === 'no-answer') this.callEvent(call, 'call.disconnected', 'ended', { cause: 'missed' });
      else this.callEvent(call, 'call.failed', 'failed', { reason: failReason });
    }, ringMs);
  }

  private clearDialTimer(): void {
    if (this.dialTimer) clearTimeout(this.dialTimer);
    this.dialTimer = null;
  }

  /** Moves the call to `state`, and queues and (when connected) sends the event. */
  private callEvent(
    call: SimCall,
    event: PhoneEventName,
    state: PhoneCallState,
    payload: Record<string, unknown> = {},
    beforeSend?: (eventId: string) => void,
  ): EventMessage {
    const msg: EventMessage = {
      type: 'event',
      eventId: randomUUID(),
      event,
      nativeCallId: call.nativeCallId,
      ...(call.callId !== undefined ? { callId: call.callId } : {}),
      direction: call.direction,
      remoteNumber: call.remoteNumber,
      occurredAt: new Date().toISOString(),
      payload,
    };
    call.state = state;
    if (FINAL_STATES.has(state) && this.call === call) {
      this.call = null;
      this.clearDialTimer();
    }
    this.outboxQueue.push(msg);
    this.events.push(msg);
    beforeSend?.(msg.eventId);
    if (this.socket) this.send(this.socket, msg);
    this.log.info({ event, callId: call.callId, nativeCallId: call.nativeCallId }, 'call event');
    this.fire('event', msg);
    this.fire('call', { ...call, event, payload });
    this.updateAudio();
    return msg;
  }

  protected onEventAck(ack: EventAckMessage): void {
    const i = this.outboxQueue.findIndex((e) => e.eventId === ack.eventId);
    const ev = i >= 0 ? this.outboxQueue.splice(i, 1)[0] : this.events.find((e) => e.eventId === ack.eventId);
    if (!ev) this.violation(`event.ack for an unknown event ${ack.eventId}`);
    else if (ack.callId === undefined) this.violation(`event.ack of ${ack.eventId} has no callId`);
    else if (ev.callId !== undefined && ev.callId !== ack.callId) {
      this.violation(`event.ack of ${ack.eventId} names call ${ack.callId}, the event is of ${ev.callId}`);
    } else {
      // The gateway named the call (incoming calls): later events carry its id.
      if (this.call?.nativeCallId === ev.nativeCallId) this.call.callId ??= ack.callId;
      for (const e of this.outboxQueue) if (e.nativeCallId === ev.nativeCallId) e.callId ??= ack.callId;
    }
    const ring = this.pendingRings.get(ack.eventId);
    if (ring && ack.callId !== undefined) {
      this.pendingRings.delete(ack.eventId);
      ring(ack.callId);
    }
    this.fire('event.ack', ack);
  }

  private updateAudio(): void {
    const call = this.call;
    const newSource = this.newSource;
    const play = this.socket !== null && call?.state === 'active' && newSource !== null;
    if (play && !this.clock.isRunning) {
      if (this.sourceCall !== call) {
        this.source = newSource();
        this.sourceCall = call;
      }
      this.clock.start();
    } else if (!play && this.clock.isRunning) {
      this.clock.stop();
    }
  }

  private sendFrame(): void {
    const ws = this.socket;
    if (!ws || !this.source || ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.droppedFrames++;
      return;
    }
    // ws may queue the buffer it is given, so each frame is its own (small, from Node's pool).
    const frame = Buffer.allocUnsafe(FRAME_BYTES);
    this.source.fill(frame);
    if (this.opts.stampFrames) writeStamp(frame, this.sentFrames);
    ws.send(frame);
    this.sentFrames++;
    if (this.hasWaiters) this.checkWaiters();
  }
}

function newNativeCallId(): string {
  return `sim-${randomUUID()}`;
}
