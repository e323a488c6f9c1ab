import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import type { Command, DeviceService, PhoneDirectory, PhoneHub } from '../phones/index.js';
import type { CallQuery, CallsRepo } from '../store/index.js';
import type { WebhookDispatcher } from '../webhooks/index.js';
import { AbsentPhones, type Exclusive } from './absent-phones.js';
import { CallLog } from './call-log.js';
import { CallWebhooks } from './call-webhooks.js';
import { CallCommands, type PlaceCallInput } from './commands.js';
import { DeviceLocks } from './device-locks.js';
import type { Call, CallEvent, GatewayEventName, StreamConfig, TranscriptLine } from './model.js';
import type { CallChange, CallEvents, CallNotices, ResumedCall } from './notices.js';
import { PhoneEventApplier } from './phone-events.js';
import { CallRecorder } from './recorder.js';
import type { CallAction } from './state.js';

export interface CallServiceOptions {
  repo: CallsRepo;
  devices: DeviceService;
  hub: PhoneHub;
  webhooks: WebhookDispatcher;
  defaultWebhookUrl: () => string | null;
  log: Logger;
  /** How long a live call waits for its phone to come back before it is ended. */
  phoneGraceMs: number;
  /**
   * How long after a `hello` the gateway waits before ending calls the phone no longer has, so that
   * the phone's own events, resent from its outbox right after the hello, end them with their true cause.
   */
  reconcileDelayMs: number;
  /** Where phones are: a grace period ends nothing while the phone is connected to any node of a cluster. */
  directory: PhoneDirectory;
  /** A phone's absent calls are ended by one node, once (`runHere` on one gateway). */
  exclusive: Exclusive;
}

/**
 * The call domain's one face: its parts, by role, are the call log (queries, the timeline's writes
 * that move no state, the flags other domains keep: call-log.ts), the recorder (the one writer of a
 * call's state, with its webhook: recorder.ts, call-webhooks.ts), the commands (place, act:
 * commands.ts), and the phone's side (events, hello reconciliation: phone-events.ts; grace periods
 * and release: absent-phones.ts). The methods here only pass on.
 *
 * Observers (streams, assistant, console) listen to `change`; also to `resumed` (the phone's hello
 * named a live call, see ResumedCall: listeners that hold nothing for it yet take it up again) and
 * `released` (the call's phone now lives on another node, which serves the call from now on:
 * listeners let go of it, ending nothing). Each listener is told on its own: one that throws is
 * logged, and neither the phone's ack nor the listeners after it depend on it.
 */
export class CallService extends EventEmitter<CallEvents> {
  private readonly callLog: CallLog;
  private readonly commands: CallCommands;
  private readonly absent: AbsentPhones;
  /** The phone hub's sink: the phone's events, hellos, digits and closed sockets. */
  readonly phoneEvents: PhoneEventApplier;

  constructor(private readonly o: CallServiceOptions) {
    super();
    const { repo, hub, log } = o;
    const notices: CallNotices = {
      change: (change) => this.notify('change', change),
      incoming: (call) => this.notify('incoming', call),
      resumed: (resumed) => this.notify('resumed', resumed),
      released: (call) => this.notify('released', call),
      dtmf: (callId, digits) => this.emit('dtmf', callId, digits),
    };
    const locks = new DeviceLocks();
    const calls = (this.callLog = new CallLog(repo));
    const recorder = new CallRecorder({ repo, calls, webhooks: new CallWebhooks(o.webhooks, o.defaultWebhookUrl), log, notices });
    this.commands = new CallCommands({ repo, calls, recorder, devices: o.devices, hub, locks, notices, log });
    this.absent = new AbsentPhones({ repo, hub, recorder, locks, notices, log, phoneGraceMs: o.phoneGraceMs, directory: o.directory, exclusive: o.exclusive });
    this.phoneEvents = new PhoneEventApplier({ repo, calls, recorder, absent: this.absent, hub, locks, notices, log, reconcileDelayMs: o.reconcileDelayMs });
  }

  /** Loads the creation clock and gives calls whose phone is away their grace period. */
  async start(): Promise<void> {
    await this.callLog.start();
    await this.absent.start();
  }

  stop(): void {
    this.phoneEvents.stop();
    this.absent.stop();
  }

  private notify(event: 'change', change: CallChange): void;
  private notify(event: 'incoming' | 'released', call: Call): void;
  private notify(event: 'resumed', resumed: ResumedCall): void;
  private notify(event: 'change' | 'incoming' | 'resumed' | 'released', arg: CallChange | Call | ResumedCall): void {
    const callId = 'call' in arg ? arg.call.id : arg.id;
    for (const listener of this.rawListeners(event) as Array<(arg: CallChange | Call | ResumedCall) => void>) {
      try {
        listener.call(this, arg);
      } catch (err) {
        this.o.log.error({ err, callId, event }, 'a listener of call changes failed');
      }
    }
  }

  // ---- queries and the timeline (CallLog) -------------------------------------------------

  get(callId: string): Promise<Call> {
    return this.callLog.get(callId);
  }

  list(query: CallQuery): Promise<{ calls: Call[]; nextBefore: string | null }> {
    return this.callLog.list(query);
  }

  events(callId: string): Promise<CallEvent[]> {
    return this.callLog.events(callId);
  }

  transcript(callId: string): Promise<TranscriptLine[]> {
    return this.callLog.transcript(callId);
  }

  addTranscriptLine(callId: string, line: TranscriptLine): Promise<void> {
    return this.callLog.addTranscriptLine(callId, line);
  }

  recordGatewayNote(callId: string, event: Exclude<GatewayEventName, 'gateway.dtmf_sent'>, payload: Record<string, unknown>): Promise<void> {
    return this.callLog.recordGatewayNote(callId, event, payload);
  }

  // ---- flags other domains keep on a call (CallLog) ---------------------------------------

  setStream(callId: string, stream: StreamConfig | null): Promise<Call> {
    return this.callLog.setStream(callId, stream);
  }

  markStreamDetached(callId: string): Promise<void> {
    return this.callLog.markStreamDetached(callId);
  }

  markAssistantHeld(callId: string, held: boolean): Promise<void> {
    return this.callLog.markAssistantHeld(callId, held);
  }

  assistantHeld(callId: string): Promise<boolean> {
    return this.callLog.assistantHeld(callId);
  }

  // ---- commands (CallCommands) ------------------------------------------------------------

  place(input: PlaceCallInput): Promise<{ call: Call; command: Command }> {
    return this.commands.place(input);
  }

  act(callId: string, action: CallAction | 'dtmf', payload: Record<string, unknown> = {}): Promise<{ call: Call; command: Command }> {
    return this.commands.act(callId, action, payload);
  }

  // ---- the phone's side: its messages reach `phoneEvents` from the hub; absent phones here ----

  /** The phone now lives on another node: this node lets go of its calls (`released`), ending nothing. */
  releaseDevice(deviceId: string): Promise<void> {
    return this.absent.releaseDevice(deviceId);
  }

  /** Ends every open call of a phone (gone for good, or away past its grace period). */
  endOpenCalls(deviceId: string, reason: string): Promise<void> {
    return this.absent.endOpenCalls(deviceId, reason);
  }
}
