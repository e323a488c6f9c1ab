import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { CallRow, CallsRepo } from '../store/index.js';
import type { StoredWebhookJob } from '../webhooks/index.js';
import type { CallLog } from './call-log.js';
import type { CallWebhooks } from './call-webhooks.js';
import { endOf } from './end-cause.js';
import { presentCall, type CallEvent } from './model.js';
import type { CallNotices } from './notices.js';
import { applyEvent, isFinal, type CallState, type EventName } from './state.js';

/** An event as it goes on a call's timeline (the phone's, or the gateway's own). */
export interface RecordedEvent {
  event: EventName;
  eventId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  /** The phone's id of the call, which a call learns from its first event; null for the gateway's own. */
  nativeCallId: string | null;
}

/** The call after an event that arrived at `receivedAt`, and whether the event ends it. */
function moved(row: CallRow, { event, payload, nativeCallId }: RecordedEvent, receivedAt: string): { updated: CallRow; ends: boolean } {
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
  return { updated, ends };
}

/**
 * The one writer of a call's state: stores an event on the timeline, moves the call by the state
 * machine and enqueues its webhook in one transaction, then tells the listeners (`change`).
 */
export class CallRecorder {
  constructor(
    private readonly o: { repo: CallsRepo; calls: CallLog; webhooks: CallWebhooks; log: Logger; notices: CallNotices },
  ) {}

  /** An event the gateway itself adds to a timeline (reconcile, phone gone, undialled). */
  async gatewayEvent(callId: string, event: EventName, payload: Record<string, unknown>): Promise<void> {
    const row = await this.o.calls.row(callId);
    await this.record(row, { event, eventId: randomUUID(), payload, occurredAt: new Date().toISOString(), nativeCallId: null });
  }

  /** Records an event; a new call (`isNew`) is stored first, in the same transaction, with a creation instant of its own. */
  record(row: CallRow, event: RecordedEvent, isNew = false): Promise<void> {
    if (!isNew) return this.recordOnce(row, event, false);
    return this.o.calls.insertUnique(row, (fresh) => this.recordOnce(fresh, event, true));
  }

  private async recordOnce(row: CallRow, recorded: RecordedEvent, isNew: boolean): Promise<void> {
    const { repo } = this.o;
    const receivedAt = new Date().toISOString();
    const { updated, ends } = moved(row, recorded, receivedAt);
    const { event, eventId, payload, occurredAt } = recorded;
    const timelineEntry: CallEvent = { event, eventId, payload, occurredAt, receivedAt };
    const call = presentCall(updated);
    const job = await this.o.webhooks.jobFor(row, timelineEntry, call, ends);
    let webhook: StoredWebhookJob | undefined;
    await repo.transaction(async (tx) => {
      if (isNew) await repo.insert(row, tx);
      await repo.insertEvent({ device_id: row.device_id, event_id: eventId, call_id: row.id, event, payload: JSON.stringify(payload), occurred_at: occurredAt, received_at: receivedAt }, tx);
      const { state, answered_at, ended_at, native_call_id, end_cause, end_reason } = updated;
      await repo.update(row.id, { state, answered_at, ended_at, native_call_id, updated_at: receivedAt, end_cause, end_reason }, tx);
      if (job) webhook = await this.o.webhooks.enqueue(job, tx);
    });
    if (webhook) this.o.webhooks.release(webhook);
    this.o.log.info({ callId: row.id, deviceId: row.device_id, event, state: updated.state }, 'call event');
    this.o.notices.change({ call, event: timelineEntry, previousState: isNew ? null : (row.state as CallState) });
  }
}
