import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { GatewayError, notFound } from '../errors.js';
import type { Logger } from '../log.js';
import type { Command, DeviceService, DtmfMessage, HelloMessage, PhoneDirectory, PhoneEvent, PhoneEventSink, PhoneHub } from '../phones/index.js';
import { simRefusal } from '../phones/sims.js';
import type { CallQuery, CallRow, CallsRepo } from '../store/index.js';
import type { StoredWebhookJob, WebhookDispatcher } from '../webhooks/index.js';
import { CreationClock, fromMicros, insertWithUniqueCreatedAt, normalizeTimestamp } from './created-at.js';
import { endOf } from './end-cause.js';
import { presentCall, type Call, type CallEvent, type GatewayEventName, type StreamConfig, type TranscriptLine } from './model.js';
import { actionRefusal, applyEvent, isFinal, type CallAction, type CallState, type EventName } from './state.js';

export interface PlaceCallInput {
  deviceId: string;
  to: string;
  webhookUrl?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  stream?: StreamConfig | undefined;
  /** Extension: the SIM slot to dial from (docs/api.md); the phone's default when absent. */
  sim?: number | undefined;
}

export interface CallChange {
  call: Call;
  /** The timeline event that moved it, if any. */
  event?: CallEvent;
  previousState: CallState | null;
}

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
 * Runs work that no other gateway runs for the same name at the same time (several gateways on one
 * database: store.exclusively); one gateway runs it at once (`runHere`).
 */
export type Exclusive = <T>(work: () => Promise<T>, name: string) => Promise<T>;

export const runHere: Exclusive = (work) => work();

/** A call whose phone came back naming it, on a node that was not serving its audio (another node died, or this one restarted). */
export interface ResumedCall {
  call: Call;
  /** Its agent stream was detached (DELETE …/stream): it stays closed. */
  streamDetached: boolean;
}

const newCallId = (): string => `call_${randomBytes(10).toString('hex')}`;

/**
 * The call domain: places and controls calls through the phone hub, applies the phone's events
 * exactly once, keeps the timeline and enqueues webhooks. Observers (streams, assistant, console)
 * listen to `change`; also to `resumed` (the phone's hello named a live call, see ResumedCall:
 * listeners that hold nothing for it yet take it up again) and `released` (the call's phone now
 * lives on another node, which serves the call from now on: listeners let go of it, ending nothing).
 */
export class CallService extends EventEmitter<{
  change: [CallChange];
  incoming: [Call];
  dtmf: [callId: string, digits: string];
  resumed: [ResumedCall];
  released: [Call];
}> implements PhoneEventSink {
  private clock!: CreationClock;
  private readonly deviceLocks = new Map<string, Promise<unknown>>();
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();
  private readonly reconcileTimers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly o: CallServiceOptions) {
    super();
  }

  /** Loads the creation clock and gives calls whose phone is away their grace period. */
  async start(): Promise<void> {
    this.clock = new CreationClock(await this.o.repo.latestCreatedAt());
    const away = new Set((await this.o.repo.openCalls()).map((c) => c.device_id));
    for (const deviceId of away) if (!(await this.connectedAnywhere(deviceId))) this.startGrace(deviceId);
  }

  private async connectedAnywhere(deviceId: string): Promise<boolean> {
    if (this.o.hub.connected(deviceId)) return true;
    return (await this.o.directory.elsewhere([deviceId])).has(deviceId);
  }

  /**
   * Tells each listener on its own: one that throws is logged, and neither the phone's ack nor the
   * listeners after it depend on it.
   */
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

  stop(): void {
    this.stopped = true;
    for (const timer of this.reconcileTimers) clearTimeout(timer);
    this.reconcileTimers.clear();
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
  }

  /** Runs `work` while holding the phone's lock, so busy checks and call creation do not interleave. */
  private withDeviceLock<T>(deviceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.deviceLocks.get(deviceId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.deviceLocks.set(deviceId, settled);
    void settled.then(() => {
      if (this.deviceLocks.get(deviceId) === settled) this.deviceLocks.delete(deviceId);
    });
    return next;
  }

  async get(callId: string): Promise<Call> {
    return presentCall(await this.row(callId));
  }

  private async row(callId: string): Promise<CallRow> {
    const row = await this.o.repo.get(callId);
    if (!row) throw notFound('Call');
    return row;
  }

  async list(query: CallQuery): Promise<{ calls: Call[]; nextBefore: string | null }> {
    const before = query.before ? normalizeTimestamp(query.before) : undefined;
    const after = query.after ? normalizeTimestamp(query.after) : undefined;
    const rows = await this.o.repo.list({ ...query, before, after, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const more = rows.length > query.limit;
    return { calls: page.map(presentCall), nextBefore: more ? (page[page.length - 1]?.created_at ?? null) : null };
  }

  async events(callId: string): Promise<CallEvent[]> {
    await this.row(callId);
    return (await this.o.repo.events(callId)).map((e) => ({
      event: e.event as CallEvent['event'],
      eventId: e.event_id,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
      occurredAt: e.occurred_at,
      receivedAt: e.received_at,
    }));
  }

  async transcript(callId: string): Promise<TranscriptLine[]> {
    await this.row(callId);
    return (await this.o.repo.transcript(callId)).map((l) => ({ role: l.role as TranscriptLine['role'], text: l.text, at: l.at }));
  }

  async addTranscriptLine(callId: string, line: TranscriptLine): Promise<void> {
    await this.o.repo.insertTranscriptLine({ call_id: callId, role: line.role, text: line.text, at: line.at });
  }

  async place(input: PlaceCallInput): Promise<{ call: Call; command: Command }> {
    if (!(await this.o.devices.exists(input.deviceId))) throw notFound('Phone');
    return this.withDeviceLock(input.deviceId, async () => {
      if (!this.o.hub.connected(input.deviceId)) throw new GatewayError('DEVICE_OFFLINE', 'The phone is not connected to the gateway');
      if (input.sim !== undefined) {
        const refusal = simRefusal(await this.o.devices.sims(input.deviceId), input.sim);
        if (refusal) throw refusal;
      }
      const busy = await this.o.repo.openCalls(input.deviceId);
      if (busy.length > 0) throw new GatewayError('DEVICE_BUSY', `The phone already has a call in progress (${busy[0]?.id})`);
      const createdAt = this.clock.next();
      const row: CallRow = {
        id: newCallId(),
        device_id: input.deviceId,
        remote_number: input.to,
        direction: 'outgoing',
        state: 'queued',
        native_call_id: null,
        webhook_url: input.webhookUrl ?? null,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        stream: input.stream ? JSON.stringify(input.stream) : null,
        created_at: createdAt,
        updated_at: createdAt,
        answered_at: null,
        ended_at: null,
        end_cause: null,
        end_reason: null,
      };
      await this.withUniqueCreatedAt(row, (fresh) => this.o.repo.insert(fresh));
      this.o.log.info({ callId: row.id, deviceId: row.device_id }, 'call placed');
      this.notify('change', { call: presentCall(row), previousState: null });
      const command = this.command(row.id, 'dial', { to: input.to, ...(input.sim !== undefined ? { sim: input.sim } : {}) });
      try {
        await this.o.hub.sendCommand(input.deviceId, command);
      } catch (err) {
        await this.failUndialled(row, err);
        throw err;
      }
      return { call: await this.get(row.id), command };
    });
  }

  /** Inserts a new call with a creation instant no other gateway of a cluster took. */
  private withUniqueCreatedAt<T>(row: CallRow, insert: (row: CallRow) => Promise<T>): Promise<T> {
    return insertWithUniqueCreatedAt(this.clock, row, insert, (err) => this.o.repo.createdAtTaken(err));
  }

  /** A dial the phone never took: the call is failed at once so it does not keep the phone busy. */
  private async failUndialled(row: CallRow, err: unknown): Promise<void> {
    const reason = err instanceof GatewayError ? `${err.code}: ${err.message}` : 'dial failed';
    this.o.log.warn({ callId: row.id, deviceId: row.device_id, reason }, 'dial not acknowledged');
    await this.gatewayEvent(row.id, 'call.failed', { reason, source: 'gateway' });
    if (err instanceof GatewayError && err.code === 'DEVICE_TIMEOUT') {
      // The phone may still have received it; ask it to drop the call.
      this.o.hub.sendCommand(row.device_id, this.command(row.id, 'hangup', {})).catch(() => undefined);
    }
  }

  async act(callId: string, action: CallAction | 'dtmf', payload: Record<string, unknown> = {}): Promise<{ call: Call; command: Command }> {
    const row = await this.row(callId);
    const refusal = actionRefusal(action, row);
    if (refusal) throw new GatewayError('INVALID_STATE', `Cannot ${action}: ${refusal} (the call is ${row.state})`);
    const command = this.command(callId, action, payload);
    await this.o.hub.sendCommand(row.device_id, command);
    this.o.log.info({ callId, deviceId: row.device_id, action }, 'command acknowledged');
    if (action === 'dtmf') await this.recordDtmfSent(row, command);
    return { call: await this.get(callId), command };
  }

  /** The digits the phone acknowledged playing, on the timeline as the gateway's own record (GATEWAY_EVENT_NAMES). */
  private async recordDtmfSent(row: CallRow, command: Command): Promise<void> {
    const at = new Date().toISOString();
    const payload = { digits: command.payload.digits, source: 'api', commandId: command.commandId };
    await this.o.repo.insertEvent({ device_id: row.device_id, event_id: `gw-${command.commandId}`, call_id: row.id, event: 'gateway.dtmf_sent', payload: JSON.stringify(payload), occurred_at: at, received_at: at });
  }

  /**
   * Something the gateway did on a call that the phone reports no event for (an assistant that could
   * not join), on the timeline as the gateway's own record (GATEWAY_EVENT_NAMES). No state, no webhook.
   */
  async recordGatewayNote(callId: string, event: Exclude<GatewayEventName, 'gateway.dtmf_sent'>, payload: Record<string, unknown>): Promise<void> {
    const row = await this.row(callId);
    const at = new Date().toISOString();
    await this.o.repo.insertEvent({ device_id: row.device_id, event_id: `gw-${randomUUID()}`, call_id: row.id, event, payload: JSON.stringify(payload), occurred_at: at, received_at: at });
  }

  private command(callId: string, action: Command['action'], payload: Record<string, unknown>): Command {
    return { type: 'command', commandId: randomUUID(), callId, action, payload };
  }

  /** Stores the call's stream configuration (the streams domain owns what happens next). */
  async setStream(callId: string, stream: StreamConfig | null): Promise<Call> {
    await this.o.repo.update(callId, { stream: stream ? JSON.stringify(stream) : null, stream_detached_at: null, updated_at: new Date().toISOString() });
    return this.get(callId);
  }

  /** Remembers that the call's stream was detached, so a node that takes the call over does not open it again. */
  async markStreamDetached(callId: string): Promise<void> {
    await this.o.repo.update(callId, { stream_detached_at: new Date().toISOString() });
  }

  /** Remembers whether the built-in assistant holds the call, for a node that takes the call over. */
  async markAssistantHeld(callId: string, held: boolean): Promise<void> {
    await this.o.repo.update(callId, { assistant_at: held ? new Date().toISOString() : null });
  }

  /** Whether the built-in assistant held the call (it was given it, and neither handed it back nor failed). */
  async assistantHeld(callId: string): Promise<boolean> {
    return Boolean((await this.o.repo.get(callId))?.assistant_at);
  }

  /**
   * The phone now lives on another node (several gateways): its open calls are served there, so
   * this node lets go of them (`released`) and ends nothing.
   */
  async releaseDevice(deviceId: string): Promise<void> {
    this.cancelGrace(deviceId);
    for (const row of await this.o.repo.openCalls(deviceId)) this.notify('released', presentCall(row));
  }

  // ---- the phone's side -------------------------------------------------------------------

  /**
   * Runs under the phone's lock, so a grace period that expires as the phone returns has either
   * ended its calls before the hello is looked at (and the phone is told to hang up) or not at all.
   */
  onHello(deviceId: string, hello: HelloMessage): Promise<void> {
    // Calls placed after this instant were dialled on this very socket; the hello cannot name them.
    const helloAt = fromMicros(Date.now() * 1000);
    this.cancelGrace(deviceId);
    return this.withDeviceLock(deviceId, () => this.reconcileHello(deviceId, hello, helloAt));
  }

  private async reconcileHello(deviceId: string, hello: HelloMessage, helloAt: string): Promise<void> {
    const onPhone = hello.call ?? null;
    if (onPhone) await this.resume(deviceId, onPhone);
    if (onPhone?.callId) {
      const known = await this.o.repo.get(onPhone.callId);
      if (known && known.device_id === deviceId && isFinal(known.state)) {
        // The gateway already ended it (the phone stayed away too long): free the line.
        this.o.log.info({ callId: known.id, deviceId }, 'phone still holds a call that has ended; asking it to hang up');
        this.o.hub.sendCommand(deviceId, this.command(known.id, 'hangup', {})).catch((err: unknown) =>
          this.o.log.warn({ err, callId: known.id, deviceId }, 'hangup of an ended call failed'),
        );
      }
    }
    const missing = (await this.o.repo.openCalls(deviceId))
      .filter((call) => call.created_at < helloAt)
      .filter((call) => !(onPhone && (onPhone.callId === call.id || (call.native_call_id !== null && onPhone.nativeCallId === call.native_call_id))))
      .map((call) => call.id);
    if (missing.length === 0) return;
    const stillHere = () => !this.stopped && this.o.hub.connected(deviceId);
    const timer = setTimeout(() => {
      this.reconcileTimers.delete(timer);
      if (!stillHere()) return;
      // What the phone sent within the window is applied first, even when it still waits behind the
      // gateway's own work on the hello (a slow database): its outbox ends calls with their true cause.
      void this.o.hub
        .applied(deviceId)
        .then(() => (stillHere() ? this.reconcile(deviceId, missing) : undefined))
        .catch((err: unknown) => this.o.log.error({ err, deviceId }, 'reconcile failed'));
    }, this.o.reconcileDelayMs);
    this.reconcileTimers.add(timer);
  }

  /** The call the hello names goes on: if it is answered, its audio and agent stream are taken up again where they are not held. */
  private async resume(deviceId: string, onPhone: NonNullable<HelloMessage['call']>): Promise<void> {
    const row = (onPhone.callId ? await this.o.repo.get(onPhone.callId) : undefined) ?? (await this.o.repo.byNativeId(deviceId, onPhone.nativeCallId));
    if (!row || row.device_id !== deviceId || (row.state !== 'active' && row.state !== 'held')) return;
    this.notify('resumed', { call: presentCall(row), streamDetached: Boolean(row.stream_detached_at) });
  }

  /** Ends the calls a phone's `hello` did not name, unless its own events have ended them meanwhile. */
  private reconcile(deviceId: string, callIds: string[]): Promise<void> {
    return this.withDeviceLock(deviceId, async () => {
      for (const callId of callIds) {
        const call = await this.o.repo.get(callId);
        if (!call || isFinal(call.state)) continue;
        this.o.log.info({ callId, deviceId }, 'phone no longer has the call; ending it');
        await this.gatewayEvent(callId, 'call.disconnected', { cause: 'other', reason: 'the phone no longer has this call', source: 'gateway' });
      }
    });
  }

  onEvent(deviceId: string, event: PhoneEvent): Promise<string | null> {
    return this.withDeviceLock(deviceId, () => this.applyPhoneEvent(deviceId, event));
  }

  /** Keypad digits the remote party pressed (protocol extension 1.1); not stored, passed to listeners. */
  onDtmf(deviceId: string, message: DtmfMessage): void {
    void (async () => {
      const row = (message.callId ? await this.o.repo.get(message.callId) : undefined) ?? (await this.o.repo.byNativeId(deviceId, message.nativeCallId));
      if (!row || row.device_id !== deviceId) return;
      this.o.log.info({ callId: row.id, deviceId, digits: message.digits.length }, 'remote party pressed keys');
      this.emit('dtmf', row.id, message.digits);
    })().catch((err: unknown) => this.o.log.warn({ err, deviceId }, 'dtmf report failed'));
  }

  onDisconnected(deviceId: string): void {
    if (this.stopped) return;
    this.o.repo
      .openCalls(deviceId)
      .then((open) => {
        if (open.length > 0 && !this.stopped && !this.o.hub.connected(deviceId)) this.startGrace(deviceId);
      })
      .catch((err: unknown) => this.o.log.warn({ err, deviceId }, 'could not check the calls of a disconnected phone'));
  }

  private startGrace(deviceId: string): void {
    if (this.graceTimers.has(deviceId)) return;
    const timer = setTimeout(() => {
      this.graceTimers.delete(deviceId);
      if (this.o.hub.connected(deviceId)) return;
      void (async () => {
        // Connected to another node meanwhile: that node serves its calls.
        if (await this.connectedAnywhere(deviceId)) return this.releaseDevice(deviceId);
        const end = () => this.endOpenCalls(deviceId, 'the phone stayed disconnected');
        await this.o.exclusive(end, `absent phone ${deviceId}`);
      })().catch((err: unknown) => this.o.log.error({ err, deviceId }, 'could not end calls of an absent phone'));
    }, this.o.phoneGraceMs);
    timer.unref();
    this.graceTimers.set(deviceId, timer);
  }

  private cancelGrace(deviceId: string): void {
    const timer = this.graceTimers.get(deviceId);
    if (timer) clearTimeout(timer);
    this.graceTimers.delete(deviceId);
  }

  /** Ends every open call of a phone (gone for good, or away past its grace period). */
  async endOpenCalls(deviceId: string, reason: string): Promise<void> {
    this.cancelGrace(deviceId);
    await this.withDeviceLock(deviceId, async () => {
      for (const call of await this.o.repo.openCalls(deviceId)) {
        this.o.log.info({ callId: call.id, deviceId, reason }, 'ending call');
        await this.gatewayEvent(call.id, 'call.disconnected', { cause: 'other', reason, source: 'gateway' });
      }
    });
  }

  /** The call an event belongs to; a new incoming call (not stored yet) for a first ring. */
  private async findCall(deviceId: string, event: PhoneEvent): Promise<{ row: CallRow; isNew: boolean } | undefined> {
    if (event.callId) {
      const row = await this.o.repo.get(event.callId);
      if (row && row.device_id === deviceId) return { row, isNew: false };
    }
    const byNative = await this.o.repo.byNativeId(deviceId, event.nativeCallId);
    const startsCall = event.event === 'call.ringing' || event.event === 'call.simulated_ringing';
    if (byNative && !(startsCall && isFinal(byNative.state) && !event.callId)) return { row: byNative, isNew: false };
    if (startsCall && !event.callId && event.direction !== 'outgoing') return { row: this.newIncoming(deviceId, event), isNew: true };
    return undefined;
  }

  private newIncoming(deviceId: string, event: PhoneEvent): CallRow {
    const createdAt = this.clock.next();
    return {
      id: newCallId(),
      device_id: deviceId,
      remote_number: event.remoteNumber ?? 'unknown',
      direction: 'incoming',
      state: 'ringing',
      native_call_id: event.nativeCallId,
      webhook_url: null,
      metadata: null,
      stream: null,
      created_at: createdAt,
      updated_at: createdAt,
      answered_at: null,
      ended_at: null,
      end_cause: null,
      end_reason: null,
    };
  }

  private async applyPhoneEvent(deviceId: string, event: PhoneEvent): Promise<string | null> {
    const seen = await this.o.repo.eventById(deviceId, event.eventId);
    if (seen) return seen.call_id;
    const found = await this.findCall(deviceId, event);
    if (!found) {
      this.o.log.warn({ deviceId, eventId: event.eventId, event: event.event }, 'event for no known call; acknowledged and dropped');
      return null;
    }
    const { row, isNew } = found;
    if (event.event === 'call.disconnected' && row.state === 'ended') {
      // The call ended once already (the gateway ended it while the phone was away, or sent the
      // hangup of a call the phone still held): one call.disconnected per timeline and per webhook.
      this.o.log.info({ callId: row.id, deviceId, eventId: event.eventId, payload: event.payload }, 'call already ended; the phone\'s own call.disconnected is acknowledged, not stored');
      return row.id;
    }
    if (isNew) this.o.log.info({ callId: row.id, deviceId, remoteNumber: row.remote_number }, 'incoming call');
    await this.record(row, event.event, event.eventId, event.payload, event.occurredAt, event.nativeCallId, isNew);
    const call = await this.get(row.id);
    if (isNew && call.state === 'ringing' && event.event !== 'call.simulated_ringing') this.notify('incoming', call);
    return row.id;
  }

  /** An event the gateway itself adds to a timeline (reconcile, phone gone, undialled). */
  private async gatewayEvent(callId: string, event: EventName, payload: Record<string, unknown>): Promise<void> {
    const row = await this.row(callId);
    await this.record(row, event, randomUUID(), payload, new Date().toISOString(), null);
  }

  /** Stores an event, moves the call (storing it first when it is new) and enqueues its webhook, in one transaction. */
  private record(row: CallRow, event: EventName, eventId: string, payload: Record<string, unknown>, occurredAt: string, nativeCallId: string | null, isNew = false): Promise<void> {
    if (!isNew) return this.recordOnce(row, event, eventId, payload, occurredAt, nativeCallId, false);
    return this.withUniqueCreatedAt(row, (fresh) => this.recordOnce(fresh, event, eventId, payload, occurredAt, nativeCallId, true));
  }

  private async recordOnce(
    row: CallRow,
    event: EventName,
    eventId: string,
    payload: Record<string, unknown>,
    occurredAt: string,
    nativeCallId: string | null,
    isNew: boolean,
  ): Promise<void> {
    const receivedAt = new Date().toISOString();
    const next = applyEvent({ state: row.state as CallState, answeredAt: row.answered_at, endedAt: row.ended_at }, event, receivedAt);
    const ends = isFinal(next.state) && !isFinal(row.state);
    const end = ends ? endOf(event, payload) : null;
    const updated: CallRow = {
      ...row,
      state: next.state,
      answered_at: next.answeredAt,
      ended_at: next.endedAt,
      native_call_id: row.native_call_id ?? nativeCallId,
      updated_at: receivedAt,
      ...(end ? { end_cause: end.cause, end_reason: end.reason } : {}),
    };
    const timelineEntry = { event, eventId, payload, occurredAt, receivedAt };
    const call = presentCall(updated);
    const url = row.webhook_url ?? this.o.defaultWebhookUrl();
    const extras = url ? await this.o.webhooks.bodyFields(row.id, ends) : {};
    let webhook: StoredWebhookJob | undefined;
    await this.o.repo.transaction(async (tx) => {
      if (isNew) await this.o.repo.insert(row, tx);
      await this.o.repo.insertEvent(
        { device_id: row.device_id, event_id: eventId, call_id: row.id, event, payload: JSON.stringify(payload), occurred_at: occurredAt, received_at: receivedAt },
        tx,
      );
      await this.o.repo.update(
        row.id,
        {
          state: updated.state,
          answered_at: updated.answered_at,
          ended_at: updated.ended_at,
          native_call_id: updated.native_call_id,
          updated_at: receivedAt,
          end_cause: updated.end_cause,
          end_reason: updated.end_reason,
        },
        tx,
      );
      if (url) webhook = await this.o.webhooks.enqueue({ callId: row.id, eventId, event, url, body: { ...timelineEntry, call, ...extras } }, tx);
    });
    if (webhook) this.o.webhooks.release(webhook);
    this.o.log.info({ callId: row.id, deviceId: row.device_id, event, state: updated.state }, 'call event');
    this.notify('change', { call, event: timelineEntry, previousState: isNew ? null : (row.state as CallState) });
  }
}
