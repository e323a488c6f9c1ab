import type { CallAttachment, CallAudio, StopReason } from '../media/index.js';
import type { AssistantBridge, BridgeTask } from './bridge.js';
import type { AssistantStatus } from './model.js';

/**
 * Where the assistant of one call is: reading what was said before it takes a call over again (no
 * bridge yet), on the call through its bridge (whose own life says the rest), or over (handed back,
 * the call ended, or it could not answer: `error` keeps why).
 */
type AssistantLife = { state: 'reading' } | { state: 'on'; bridge: AssistantBridge } | { state: 'over'; error?: string };

/**
 * The assistant of one call, as an attachment of the call's audio (CallAttachments). Its status is
 * read from its life and its bridge's, never copied beside them.
 */
export class CallAssistant implements CallAttachment<AssistantStatus> {
  private life: AssistantLife;
  /** The call's task, if it was given one. */
  task: BridgeTask | undefined;
  /** The writes of `assistant_at`, one after another (on PostgreSQL two writes in flight may land in either order). */
  heldWrites: Promise<void> | undefined;
  /** The write of its failure to the call's timeline: answers about the call wait for it, so what they say is on the timeline too. */
  noted: Promise<void> | undefined;

  constructor(
    /** The call's audio, if it has started. */
    private readonly audioOf: () => CallAudio | undefined,
    task?: BridgeTask,
  ) {
    this.life = { state: 'reading' };
    this.task = task;
  }

  get status(): AssistantStatus {
    const { life } = this;
    if (life.state === 'reading') return 'waiting';
    if (life.state === 'on') return life.bridge.status;
    return life.error === undefined ? 'ended' : 'error';
  }

  get error(): string | undefined {
    const { life } = this;
    if (life.state === 'on') return life.bridge.failure?.error;
    return life.state === 'over' ? life.error : undefined;
  }

  /** Its bridge while it is on the call; a bridge it no longer holds is stale, and what it reports is dropped. */
  get bridge(): AssistantBridge | undefined {
    return this.life.state === 'on' ? this.life.bridge : undefined;
  }

  /** Still reading what was said before a takeover (not handed back, nor over, meanwhile). */
  get reading(): boolean {
    return this.life.state === 'reading';
  }

  /** Puts the assistant on the call through `bridge` (not yet connected). */
  bridgeWith(bridge: AssistantBridge): void {
    this.life = { state: 'on', bridge };
  }

  /** The call was answered: a connected bridge bridges its audio; one given the call while it was dialling connects now. */
  attach(audio: CallAudio): void {
    const bridge = this.bridge;
    if (bridge?.phase === 'ready') bridge.attach(audio);
    else if (bridge?.phase === 'idle') void this.connect();
  }

  /** Connects the model; a live call gets the assistant, or, if the model cannot be had, the failure tone and a hang-up. */
  async connect(): Promise<void> {
    const bridge = this.bridge;
    if (!bridge) return;
    const ok = await bridge.connect();
    if (this.bridge !== bridge) return;
    const audio = this.audioOf();
    if (!audio) return;
    if (ok) bridge.attach(audio);
    else bridge.failOnLiveCall(audio);
  }

  /**
   * The model socket closes; the call is left alone. Let go of first, so its bridge's end is stale
   * (no failure of the assistant: one let go of goes on on another node). A failed one stays `error`.
   */
  stop(_reason: StopReason): void {
    const { life } = this;
    if (life.state === 'over') return;
    const bridge = this.bridge;
    const error = bridge?.failure?.error;
    this.life = error === undefined ? { state: 'over' } : { state: 'over', error };
    bridge?.stop();
  }

  /** It could not do its part (the call could not be answered): over, status `error` with why. */
  failed(error: string): void {
    this.bridge?.stop();
    this.life = { state: 'over', error };
  }
}
