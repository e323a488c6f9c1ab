import { EventEmitter } from 'node:events';
import { FRAME_MS, FrameClock, type AudioDrops } from '../audio/index.js';
import type { Call, CallChange, CallService, ResumedCall } from '../calls/index.js';
import { isFinal } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { PhoneAudioPort, PhoneHub } from '../phones/index.js';
import { CallAudio } from './call-audio.js';

/**
 * Ticks of the shared clock per frame. Each call ticks on one of them, so what calls send at their
 * ticks (audio that waited for a token: a sentence sent at once) leaves in groups spread over the
 * 20 ms. Two phases cost less CPU at 100 calls (fewer wake-ups), but did no better where it counts,
 * near the largest N (docs/performance.md, "Fewer steps per frame"): four stay.
 */
const PHASES = 4;

/**
 * Owns the CallAudio of every call that is active or held, makes it the receiver of its phone's
 * audio port (the phone's frames go straight from its socket to it), and drives every play-out
 * from one shared drift-free clock. `started` is where everything that uses a call's audio (agent streams, the assistant,
 * media sockets) attaches; `ended` is where it lets go.
 */
export class MediaRouter extends EventEmitter<{ started: [CallAudio, Call]; ended: [CallAudio, Call] }> {
  private readonly byCall = new Map<string, CallAudio>();
  private unsubscribeClock: (() => void) | undefined;
  /** The calls playing on each phase of the clock. */
  private readonly phases: Set<CallAudio>[] = Array.from({ length: PHASES }, () => new Set());
  /** Where each call's audio is placed: its phase of the clock and its phone's audio port. */
  private readonly placed = new Map<CallAudio, { phase: Set<CallAudio>; port: PhoneAudioPort }>();
  private nextPhase = 0;
  /** Frames of the calls whose audio has ended; the live calls' own counts are added when read. */
  private readonly endedFrames = { in: 0, out: 0 };

  constructor(
    private readonly o: { calls: CallService; hub: PhoneHub; log: Logger; drops: AudioDrops; clock?: FrameClock },
  ) {
    super();
    // The clock ticks PHASES times per frame; each call plays on one of those phases (see PHASES).
    this.clock =
      o.clock ??
      new FrameClock({
        periodMs: FRAME_MS / PHASES,
        maxCatchUp: 50 * PHASES,
        burst: 5 * PHASES,
        onError: (err) => o.log.error({ err }, 'play-out tick failed'),
      });
  }

  private readonly clock: FrameClock;

  /**
   * Follows the calls and the phones (the gateway's wiring, before anything that attaches to a
   * call's audio subscribes: the router makes a call's audio before they hear of the call).
   * Returns the unsubscribe.
   */
  subscribe(): () => void {
    const { calls, hub } = this.o;
    const onChange = (change: CallChange): void => this.onChange(change);
    // A call taken over from another node (or from before a restart) gets its audio here. One whose
    // phone moved to another node goes on there: here its audio ends as if the call had.
    const onResumed = ({ call }: ResumedCall): void => this.onChange({ call, previousState: call.state });
    const onReleased = (call: Call): void => this.onChange({ call: { ...call, state: 'ended' }, previousState: call.state });
    // MediaInfo.streaming is true exactly while the phone sends frames: a phone gone offline sends none.
    const onDevice = (deviceId: string): void => {
      if (hub.connected(deviceId)) return;
      // The call whose audio the phone's port carries (the latest, when the phone has two).
      for (const [audio, { port }] of this.placed) if (port.deviceId === deviceId && port.receiver === audio) audio.stopStreaming();
    };
    calls.on('change', onChange);
    calls.on('resumed', onResumed);
    calls.on('released', onReleased);
    hub.on('device', onDevice);
    return () => {
      calls.off('change', onChange);
      calls.off('resumed', onResumed);
      calls.off('released', onReleased);
      hub.off('device', onDevice);
    };
  }

  get(callId: string): CallAudio | undefined {
    return this.byCall.get(callId);
  }

  isStreaming(callId: string): boolean {
    return this.byCall.get(callId)?.streaming ?? false;
  }

  get activeCount(): number {
    return this.byCall.size;
  }

  /** Where audio that is dropped is counted (media clients count theirs here too). */
  get drops(): AudioDrops {
    return this.o.drops;
  }

  /**
   * Frames received from phones and taken by their calls, and frames sent to phones, since the
   * gateway started. Read at scrape time from the calls' own counters, so the audio path pays nothing.
   */
  framesCounted(): { fromPhones: number; toPhones: number } {
    let fromPhones = this.endedFrames.in;
    let toPhones = this.endedFrames.out;
    for (const audio of this.byCall.values()) {
      fromPhones += audio.framesIn;
      toPhones += audio.framesOut;
    }
    return { fromPhones, toPhones };
  }

  private onChange({ call }: CallChange): void {
    const existing = this.byCall.get(call.id);
    if ((call.state === 'active' || call.state === 'held') && !existing) {
      const port = this.o.hub.audioPort(call.deviceId);
      const audio = new CallAudio(call.id, call.deviceId, port, this.o.drops);
      // The phone's frames go straight from its socket to this call's audio (the latest call's, when it has two).
      port.receiver = audio;
      const phase = this.phases[this.nextPhase]!;
      phase.add(audio);
      this.placed.set(audio, { phase, port });
      this.nextPhase = (this.nextPhase + 1) % PHASES;
      this.byCall.set(call.id, audio);
      this.unsubscribeClock ??= this.clock.subscribe(this.tick);
      this.o.log.debug({ callId: call.id, deviceId: call.deviceId }, 'call audio started');
      this.emit('started', audio, call);
    } else if (existing && call.state === 'held') {
      // A held call's audio stops on the phone (phone-protocol.md section 4).
      existing.stopStreaming();
    } else if (existing && isFinal(call.state)) {
      this.byCall.delete(call.id);
      const placed = this.placed.get(existing);
      this.placed.delete(existing);
      placed?.phase.delete(existing);
      if (placed?.port.receiver === existing) placed.port.receiver = undefined;
      this.endedFrames.in += existing.framesIn;
      this.endedFrames.out += existing.framesOut;
      if (this.byCall.size === 0) {
        this.unsubscribeClock?.();
        this.unsubscribeClock = undefined;
      }
      this.o.log.debug({ callId: call.id, deviceId: call.deviceId, framesIn: existing.framesIn, framesOut: existing.framesOut }, 'call audio ended');
      this.emit('ended', existing, call);
    }
  }

  private readonly tick = (tick: number): void => {
    for (const audio of this.phases[tick % PHASES]!) audio.tick();
  };

  stop(): void {
    this.unsubscribeClock?.();
    this.unsubscribeClock = undefined;
  }
}
