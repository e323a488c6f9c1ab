import type { Call, CallService } from '../calls/index.js';
import { isFinal } from '../calls/index.js';
import { GatewayError, notFound } from '../errors.js';
import type { IncomingAssistant } from '../incoming/index.js';
import type { Logger } from '../log.js';
import type { AttachmentKind, CallAttachments, TakeUp } from '../media/index.js';
import type { OutboundPolicy } from '../outbound/index.js';
import type { AgentSettings, SettingsService } from '../settings/index.js';
import type { AssistantMessagesRepo, AssistantTasksRepo } from '../store/index.js';
import type { PingTimings } from '../socket-guard.js';
import { AssistantBridge } from './bridge.js';
import { CallAssistant } from './call-assistant.js';
import { testModelConnection, type ConnectionTestResult } from './connection.js';
import type { RecordedMessage, ReportedOutcome } from './tool-results.js';
import type { ResumedConversation } from './realtime/index.js';
import { presentMessage, presentTask, type AssistantCallInfo, type AssistantMessage, type AssistantStatus, type AssistantTask, type TaskOutcome } from './model.js';

export interface AssistantServiceOptions {
  calls: CallService;
  /** The registry it keeps each call's assistant in (an attachment of the call's audio). */
  attachments: CallAttachments;
  settings: SettingsService;
  messages: AssistantMessagesRepo;
  /** The tasks of calls placed with one, and their outcomes. */
  tasks: AssistantTasksRepo;
  log: Logger;
  /** The Realtime endpoint (config.assistantRealtimeUrl). */
  realtimeUrl: string;
  /** Which addresses the endpoint may resolve to (OUTBOUND_DENY / OUTBOUND_ALLOW). */
  outbound: OutboundPolicy;
  /** How long the model may take to confirm its session and to begin its first answer. Default 10 s. */
  responseTimeoutMs?: number;
  /** How often the model's socket is pinged and how long it may take to answer (default: as agent sockets). */
  ping?: PingTimings;
  /** Hears every message the assistant takes, and every change of its read mark (the console's live channel). */
  onMessage?: (message: AssistantMessage) => void;
}

const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;
const ACTIVE: ReadonlySet<AssistantStatus> = new Set(['waiting', 'connecting', 'live']);

/**
 * The built-in assistant of each call (spec "Assistant"): `take` hands a call to it, `release`
 * takes it back; its status follows the model socket and the call. Also the spec's rule 2. Each
 * call's assistant is an attachment of the call's audio (CallAssistant), kept by the registry:
 * it lets go when the call ends or moves to another node, and ended ones are kept a while.
 */
export class AssistantService implements IncomingAssistant {
  private readonly assistants: AttachmentKind<CallAssistant>;

  constructor(private readonly o: AssistantServiceOptions) {
    this.assistants = o.attachments.kind('assistant', (event) => this.takeUp(event));
  }

  agentSettings(): AgentSettings {
    return this.o.settings.agent();
  }

  updateAgentSettings(patch: Partial<AgentSettings>): Promise<AgentSettings> {
    return this.o.settings.updateAgent(patch);
  }

  /** "Test the connection": opens a model session with the stored settings, closes it, and says what happened. */
  testConnection(): Promise<ConnectionTestResult> {
    return testModelConnection({
      apiKey: this.o.settings.assistantApiKey() ?? undefined,
      url: this.o.realtimeUrl,
      model: this.o.settings.assistantModel(),
      outbound: this.o.outbound,
      timeoutMs: this.o.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS,
    });
  }

  async messages(limit: number): Promise<AssistantMessage[]> {
    return (await this.o.messages.list(limit)).map(presentMessage);
  }

  /**
   * Marks the message of a call read (or unread again). The inbox is the line's, shared by everyone
   * who signs in to the console, like a shared voicemail box: one person reading it marks it for all.
   */
  async markRead(callId: string, read: boolean): Promise<AssistantMessage> {
    const row = await this.o.messages.setReadAt(callId, read ? new Date().toISOString() : null);
    if (!row) throw notFound('Message');
    const message = presentMessage(row);
    this.o.onMessage?.(message);
    return message;
  }

  /** The message the assistant took on a call, if any (webhook bodies carry it). */
  async message(callId: string): Promise<AssistantMessage | undefined> {
    const row = await this.o.messages.byCall(callId);
    return row ? presentMessage(row) : undefined;
  }

  /** The task of a call and how it went (webhook bodies carry it); undefined for a call without a task. */
  async task(callId: string, callEnded?: boolean): Promise<{ task: AssistantTask; outcome?: TaskOutcome } | undefined> {
    const row = await this.o.tasks.byCall(callId);
    if (!row) return undefined;
    return presentTask(row, callEnded ?? isFinal((await this.o.calls.get(callId)).state));
  }

  async info(callId: string): Promise<AssistantCallInfo> {
    await this.assistants.get(callId)?.noted;
    const transcript = await this.o.calls.transcript(callId);
    const row = await this.o.messages.byCall(callId);
    const message = row ? presentMessage(row) : undefined;
    const task = await this.task(callId);
    const state = this.assistants.get(callId);
    // After a restart no model socket survives: a call the assistant held, or with a transcript or a message, was the assistant's.
    const requested = state !== undefined || transcript.length > 0 || message !== undefined || task !== undefined || (await this.o.calls.assistantHeld(callId));
    const status: AssistantStatus = state?.status ?? (requested ? 'ended' : 'off');
    return {
      requested,
      status,
      ...(state?.error ? { error: state.error } : {}),
      transcript,
      ...(message ? { message } : {}),
      ...task,
    };
  }

  /**
   * Refuses a task the assistant could not carry out, before a call is placed for it: without a
   * model key the call would ring someone for nothing.
   */
  assertCanTakeTask(): void {
    if (!this.o.settings.assistantApiKey()) throw new GatewayError('DEVICE_OFFLINE', 'The assistant has no model API key yet: add one in Settings, under Assistant model');
  }

  /**
   * POST /v1/calls/{id}/agent. A ringing incoming call is answered once the model has confirmed
   * its session (so a refused key leaves it ringing for a person); an outgoing call not yet picked
   * up waits; an active call is bridged at once.
   */
  async take(callId: string, task?: AssistantTask): Promise<AssistantCallInfo> {
    const apiKey = this.o.settings.assistantApiKey();
    if (!apiKey) throw new GatewayError('DEVICE_OFFLINE', 'The assistant has no model API key yet: add one in Settings, under Assistant model');
    let call = await this.o.calls.get(callId);
    if (isFinal(call.state)) throw new GatewayError('DEVICE_OFFLINE', `The call is not live (${call.state})`);
    const existing = this.assistants.get(callId);
    if (existing && ACTIVE.has(existing.status)) {
      // The session's instructions are set when it opens: a new task cannot reach one already running.
      if (task) throw new GatewayError('INVALID_STATE', 'The assistant is already on this call: take it back (DELETE /v1/calls/{callId}/agent) before giving it a task');
      return this.info(callId);
    }
    if (task) {
      await this.o.tasks.give({
        call_id: callId,
        instructions: task.instructions,
        voice: task.voice ?? null,
        hang_up_when_done: task.hangUpWhenDone ? 1 : 0,
        given_at: new Date().toISOString(),
      });
      // Read again: the call may have been answered during the write, and its audio started with no assistant here yet.
      call = await this.o.calls.get(callId);
      if (isFinal(call.state)) throw new GatewayError('DEVICE_OFFLINE', `The call is not live (${call.state})`);
    }

    const state = new CallAssistant(() => this.o.attachments.audioOf(callId), task);
    const bridge = this.newBridge(call, apiKey, state);
    state.bridgeWith(bridge);
    this.assistants.set(callId, state);
    this.o.log.info({ callId, deviceId: call.deviceId, state: call.state }, 'assistant takes the call');
    void this.markHeld(call, true, state);

    if (call.direction === 'incoming' && call.state === 'ringing') {
      if (!(await bridge.connect()) || state.bridge !== bridge) return this.info(callId);
      call = await this.o.calls.get(callId);
      if (call.state === 'ringing') {
        try {
          await this.o.calls.act(callId, 'answer');
        } catch (err) {
          bridge.stop();
          if (state.bridge === bridge) state.failed(`Could not answer the call: ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        }
      }
      // Answered: its audio may have started during the answer already, or starts later (`started` attaches it then).
      this.assistants.attachNow(callId, state);
    } else if (call.state === 'active' || call.state === 'held') {
      await state.connect();
    }
    return this.info(callId);
  }

  /** DELETE /v1/calls/{id}/agent: the model socket closes; the call goes on without the assistant. */
  async release(callId: string): Promise<AssistantCallInfo> {
    const call = await this.o.calls.get(callId);
    const state = this.assistants.get(callId);
    if (state) {
      // Also one still reading what was said before it takes a call over: it stops there.
      state.stop('ended');
      this.o.log.info({ callId, deviceId: call.deviceId }, 'assistant handed the call back');
    }
    // Written before the answer: a takeover right after it must not put the assistant back.
    await this.markHeld(call, false, state);
    return this.info(callId);
  }

  /** Rule 2: with autoAnswer on and a key set, the assistant answers the ringing call. */
  async takeIncoming(call: Call): Promise<boolean> {
    if (!this.o.settings.agent().autoAnswer || !this.o.settings.assistantApiKey()) return false;
    const info = await this.take(call.id);
    return info.status !== 'error';
  }

  /** The status of every assistant session it holds: those of calls in progress, and final ones kept a while after. */
  *statuses(): Generator<AssistantStatus> {
    for (const state of this.assistants.values()) yield state.status;
  }

  close(): void {
    for (const state of this.assistants.values()) state.bridge?.stop();
  }

  private newBridge(call: Call, apiKey: string, state: CallAssistant, resumed?: ResumedConversation): AssistantBridge {
    const { calls, log } = this.o;
    // Lines are written one after another, so the transcript keeps the order they were spoken in.
    let writes: Promise<void> = Promise.resolve();
    const bridge: AssistantBridge = new AssistantBridge({
      call,
      apiKey,
      url: this.o.realtimeUrl,
      outbound: this.o.outbound,
      model: this.o.settings.assistantModel(),
      agent: this.o.settings.agent(),
      task: state.task,
      outcome: (o) => this.report(call, o),
      log,
      responseTimeoutMs: this.o.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS,
      ...(this.o.ping ? { ping: this.o.ping } : {}),
      ...(resumed ? { resumed } : {}),
      failed: () => {
        const failure = bridge.failure;
        if (state.bridge !== bridge || !failure) return;
        // A failed assistant is not put back on the call by a node that takes it over.
        void this.markHeld(call, false, state);
        // On the call's timeline, so the failure is still readable once the call is over (issue 26).
        state.noted = calls
          .recordGatewayNote(call.id, 'gateway.assistant_failed', { reason: failure.error, kind: failure.kind, source: 'gateway' })
          .catch((err: unknown) => log.error({ err, callId: call.id }, 'could not record the assistant failure on the timeline'));
      },
      transcript: (role, text) => {
        const line = { role, text, at: new Date().toISOString() };
        writes = writes
          .then(() => calls.addTranscriptLine(call.id, line))
          .catch((err: unknown) => log.error({ err, callId: call.id }, 'could not store a transcript line'));
      },
      message: (m) => this.store(call, m),
      hangup: (reason) => {
        log.info({ callId: call.id, deviceId: call.deviceId, reason }, 'assistant hangs up');
        calls.act(call.id, 'hangup').catch((err: unknown) => log.warn({ err, callId: call.id }, 'assistant hangup failed'));
      },
    });
    return bridge;
  }

  private async report(call: Call, o: ReportedOutcome): Promise<void> {
    await this.o.tasks.report(call.id, JSON.stringify(o), new Date().toISOString());
    this.o.log.info({ callId: call.id, deviceId: call.deviceId, achieved: o.achieved }, 'assistant reported the outcome of its task');
  }

  private async store(call: Call, m: RecordedMessage): Promise<void> {
    const row = {
      call_id: call.id,
      remote_number: call.remoteNumber,
      caller_name: m.callerName,
      reason: m.reason,
      callback_number: m.callbackNumber ?? call.remoteNumber,
      urgency: m.urgency,
      taken_at: new Date().toISOString(),
      read_at: null,
    };
    await this.o.messages.upsert(row);
    this.o.log.info({ callId: call.id, deviceId: call.deviceId, urgency: m.urgency }, 'assistant took a message');
    this.o.onMessage?.(presentMessage(row));
  }

  /**
   * A call whose audio starts here with no assistant: one this node did not serve until now (its
   * node died, or this gateway restarted; answered before or after the takeover). If the assistant
   * held it, a new session takes it, told what was said so far, and goes on from there rather than
   * greeting again. Without a key any more it stays off. (The assistant is taken up on `started`,
   * not on `resumed`, because a call given to it before its answer is taken over unanswered.)
   */
  private takeUp(event: TakeUp): void {
    if (event.on !== 'started') return;
    const { call } = event;
    this.takeBack(call).catch((err: unknown) => this.o.log.error({ err, callId: call.id, deviceId: call.deviceId }, 'could not put the assistant back on the call'));
  }

  private async takeBack(call: Call): Promise<void> {
    if (!(await this.o.calls.assistantHeld(call.id)) || this.assistants.has(call.id)) return;
    const apiKey = this.o.settings.assistantApiKey();
    if (!apiKey) {
      this.o.log.warn({ callId: call.id, deviceId: call.deviceId }, 'the assistant held this call, but it has no model API key any more: not put back on it');
      return;
    }
    const state = new CallAssistant(() => this.o.attachments.audioOf(call.id));
    this.assistants.set(call.id, state);
    const [earlier, message, taskRow] = await Promise.all([this.o.calls.transcript(call.id), this.o.messages.byCall(call.id), this.o.tasks.byCall(call.id)]);
    // The task goes on with the call: the new session is given it again.
    if (taskRow) state.task = presentTask(taskRow, false).task;
    // Handed back, or over, while the transcript was read.
    if (this.assistants.get(call.id) !== state || !state.reading) return;
    state.bridgeWith(this.newBridge(call, apiKey, state, { earlier, messageTaken: message !== undefined }));
    this.o.log.info({ callId: call.id, deviceId: call.deviceId, lines: earlier.length }, 'assistant takes the call again after a takeover');
    await state.connect();
  }

  /** Best effort: a write that fails costs only the assistant's return after a takeover. */
  private markHeld(call: Call, held: boolean, state: CallAssistant | undefined): Promise<void> {
    const write = (): Promise<void> =>
      this.o.calls.markAssistantHeld(call.id, held).catch((err: unknown) =>
        this.o.log.warn({ err, callId: call.id, deviceId: call.deviceId }, 'could not record whether the assistant holds the call'),
      );
    if (!state) return write();
    state.heldWrites = (state.heldWrites ?? Promise.resolve()).then(write);
    return state.heldWrites;
  }
}
