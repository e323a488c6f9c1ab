import type { Call, CallChange, CallService, ResumedCall } from '../calls/index.js';
import { EndedCallRetention, isFinal } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { CallAudio } from './call-audio.js';
import type { MediaRouter } from './router.js';

/**
 * Why an attachment lets go of its call: the call (or its audio) ended here; its phone moved to
 * another node, which takes it up (no failure, nothing kept); its service replaced it (a new stream
 * on the call); the gateway shuts down.
 */
export type StopReason = 'ended' | 'released' | 'replaced' | 'closing';

/**
 * Something that uses one call's audio: an agent stream, the assistant, a media socket. The
 * registry hands it the call's audio when it is there and tells it when to let go; its status is
 * read from its own lifecycle.
 */
export interface CallAttachment<Status = string> {
  /** The call's audio is there (its `started`, or it already was): one waiting for it attaches; any other ignores it. */
  attach(audio: CallAudio): void;
  /** Lets go of the call's audio and of its socket. Called once by the registry; at most once more by its service at shutdown. */
  stop(reason: StopReason): void;
  readonly status: Status;
}

/**
 * A call this node holds nothing of a kind for, which the kind may take up: one placed with it
 * (`placed`, the call's first change), one taken over from another node or from before a restart
 * (`resumed`: the phone's hello named the live call; `started`: its audio starts here with nothing
 * of the kind attached).
 */
export type TakeUp =
  | { on: 'placed'; call: Call }
  | { on: 'resumed'; resumed: ResumedCall }
  | { on: 'started'; call: Call; audio: CallAudio };

/** What the registry reads of every kind, whatever its attachments' type. */
interface Kind {
  readonly name: string;
  of(callId: string): CallAttachment<unknown>[];
  has(callId: string): boolean;
  forget(callId: string): void;
  ended(callId: string): void;
  takeUp(event: TakeUp): void;
}

/** The attachments of one kind (a stream per call, the assistant per call, any number of media sockets), by call. */
export class AttachmentKind<A extends CallAttachment<unknown>> implements Kind {
  private readonly byCall = new Map<string, Set<A>>();
  /** Each kind keeps its own last 1000 ended calls, as each service did: one kind's traffic does not push out another's statuses. */
  private readonly retention = new EndedCallRetention((callId) => {
    this.byCall.delete(callId);
    this.evicted(callId);
  });

  constructor(
    readonly name: string,
    private readonly audioOf: (callId: string) => CallAudio | undefined,
    /** How the kind takes up a call it holds nothing for (see TakeUp); none by default. */
    readonly takeUp: (event: TakeUp) => void = () => undefined,
    /** Told when an ended call's attachments of this kind are let go of. */
    private readonly evicted: (callId: string) => void = () => undefined,
  ) {}

  /** The call's attachment of this kind (the first, for a kind with several). */
  get(callId: string): A | undefined {
    return this.byCall.get(callId)?.values().next().value;
  }

  /** A copy: an attachment may leave while its call's event is handed round. */
  of(callId: string): A[] {
    const set = this.byCall.get(callId);
    return set ? [...set] : [];
  }

  count(callId: string): number {
    return this.byCall.get(callId)?.size ?? 0;
  }

  has(callId: string): boolean {
    return this.byCall.has(callId);
  }

  /** Makes `attachment` the call's one attachment of this kind; the one it replaces is returned, not stopped. */
  set(callId: string, attachment: A): A | undefined {
    const previous = this.get(callId);
    this.byCall.set(callId, new Set([attachment]));
    return previous;
  }

  /** Adds one more attachment to the call (media sockets). */
  add(callId: string, attachment: A): void {
    let set = this.byCall.get(callId);
    if (!set) this.byCall.set(callId, (set = new Set()));
    set.add(attachment);
  }

  /** Forgets `attachment` if it is still the call's (not one that replaced it). */
  remove(callId: string, attachment: A): void {
    const set = this.byCall.get(callId);
    if (!set?.delete(attachment)) return;
    if (set.size === 0) this.byCall.delete(callId);
  }

  /** Forgets the call's attachments of this kind. */
  forget(callId: string): void {
    this.byCall.delete(callId);
  }

  /** The call ended: its attachments of this kind are kept a while (their statuses, for GET), then forgotten. */
  ended(callId: string): void {
    if (this.byCall.has(callId)) this.retention.callEnded(callId);
  }

  /** Attaches now if the call's audio exists; else the call's `started` will. */
  attachNow(callId: string, attachment: A): void {
    const audio = this.audioOf(callId);
    if (audio) attachment.attach(audio);
  }

  /** Every attachment of this kind: those of calls in progress, and ended ones kept a while after. */
  *values(): Generator<A> {
    for (const set of this.byCall.values()) yield* set;
  }
}

/**
 * The one owner of "attach to a call's audio": every kind's attachments by call, one subscription
 * for all calls and kinds to the router's `started` and the calls' final `change`, `released` and
 * `resumed`, handed to the attachments of that call. An ended call's attachments are stopped once
 * and kept a while (their statuses, for GET): each kind keeps its last 1000 ended calls'.
 */
export class CallAttachments {
  private readonly kinds: Kind[] = [];
  /** Calls whose attachments were stopped because the call ended; kept while a kind keeps them. */
  private readonly over = new Set<string>();

  constructor(private readonly o: { calls: CallService; media: MediaRouter; log: Logger }) {}

  /** The call's audio, if it has started here. */
  audioOf(callId: string): CallAudio | undefined {
    return this.o.media.get(callId);
  }

  /** A kind of attachment; kinds are handed each event in the order they were made. */
  kind<A extends CallAttachment<unknown>>(name: string, takeUp?: (event: TakeUp) => void): AttachmentKind<A> {
    const kind = new AttachmentKind<A>(name, (callId) => this.audioOf(callId), takeUp, (callId) => {
      if (!this.holds(callId)) this.over.delete(callId);
    });
    this.kinds.push(kind);
    return kind;
  }

  /**
   * Subscribes once for every call and kind (the gateway's wiring, after the router's own: the
   * router has made a call's audio before any attachment hears of it). Returns the unsubscribe.
   */
  subscribe(): () => void {
    const { calls, media } = this.o;
    media.on('started', this.onStarted);
    calls.on('change', this.onChange);
    calls.on('released', this.onReleased);
    calls.on('resumed', this.onResumed);
    return () => {
      media.off('started', this.onStarted);
      calls.off('change', this.onChange);
      calls.off('released', this.onReleased);
      calls.off('resumed', this.onResumed);
    };
  }

  /** The call was answered (or taken over): its attachments attach; a kind with none may take it up. */
  private readonly onStarted = (audio: CallAudio, call: Call): void => {
    for (const kind of this.kinds) {
      const attached = kind.of(call.id);
      if (attached.length === 0) this.takeUp(kind, { on: 'started', call, audio });
      for (const attachment of attached) this.each(kind, call.id, () => attachment.attach(audio));
    }
  };

  private readonly onChange = ({ call, previousState }: CallChange): void => {
    if (previousState === null) for (const kind of this.kinds) if (!kind.has(call.id)) this.takeUp(kind, { on: 'placed', call });
    if (!isFinal(call.state)) return;
    // Heard right after the router's own `change`, in which the call's audio (if any) ended: the
    // attachments let go in the same turn as the router's `ended`, and a call never answered too.
    this.stopAll(call.id, 'ended');
    for (const kind of this.kinds) kind.ended(call.id);
  };

  /** The call's phone moved to another node, which serves the call from now on: nothing of it is kept here. */
  private readonly onReleased = (call: Call): void => {
    this.stopAll(call.id, 'released');
    this.evict(call.id);
  };

  /** The media router, told first, has started the call's audio already (its `started` came before). */
  private readonly onResumed = (resumed: ResumedCall): void => {
    for (const kind of this.kinds) if (!kind.has(resumed.call.id)) this.takeUp(kind, { on: 'resumed', resumed });
  };

  /**
   * Stops every attachment of the call once: at its final change or its release. (Not on the
   * router's `ended`, which a release causes too: the release's reason would be lost behind it.)
   */
  private stopAll(callId: string, reason: StopReason): void {
    if (this.over.has(callId) || !this.holds(callId)) return;
    if (reason === 'ended') this.over.add(callId);
    for (const kind of this.kinds) for (const attachment of kind.of(callId)) this.each(kind, callId, () => attachment.stop(reason));
  }

  private holds(callId: string): boolean {
    return this.kinds.some((kind) => kind.has(callId));
  }

  private evict(callId: string): void {
    this.over.delete(callId);
    for (const kind of this.kinds) kind.forget(callId);
  }

  private takeUp(kind: Kind, event: TakeUp): void {
    const callId = event.on === 'resumed' ? event.resumed.call.id : event.call.id;
    this.each(kind, callId, () => kind.takeUp(event));
  }

  /** One attachment that throws is logged; the others, and the call's other listeners, do not depend on it. */
  private each(kind: Kind, callId: string, work: () => void): void {
    try {
      work();
    } catch (err) {
      this.o.log.error({ err, callId, kind: kind.name }, 'an attachment of the call failed');
    }
  }
}
