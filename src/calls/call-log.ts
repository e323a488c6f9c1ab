import { randomBytes, randomUUID } from 'node:crypto';
import { notFound } from '../errors.js';
import type { Command } from '../phones/index.js';
import type { CallQuery, CallRow, CallsRepo } from '../store/index.js';
import { CreationClock, insertWithUniqueCreatedAt, normalizeTimestamp } from './created-at.js';
import { presentCall, type Call, type CallEvent, type GatewayEventName, type StreamConfig, type TranscriptLine } from './model.js';

/** What a new call is given; the rest of its row (id, creation instant, no answer or end yet) is the log's. */
export type NewCall = Pick<CallRow, 'device_id' | 'remote_number' | 'direction' | 'state' | 'native_call_id' | 'webhook_url' | 'metadata' | 'stream'>;

const newCallId = (): string => `call_${randomBytes(10).toString('hex')}`;

/**
 * The call log: reads calls, their timelines and transcripts; writes what no state follows from
 * (transcript lines, the gateway's own notes, the flags other domains keep on a call); makes new
 * call rows with unique creation instants. Moving a call's state is the recorder's (recorder.ts).
 */
export class CallLog {
  private clock!: CreationClock;

  constructor(private readonly repo: CallsRepo) {}

  /** Loads the creation clock past the newest stored call. */
  async start(): Promise<void> {
    this.clock = new CreationClock(await this.repo.latestCreatedAt());
  }

  /** A new call's row, not stored yet: the one place a call row is built. */
  newRow(call: NewCall): CallRow {
    const createdAt = this.clock.next();
    return { id: newCallId(), ...call, created_at: createdAt, updated_at: createdAt, answered_at: null, ended_at: null, end_cause: null, end_reason: null };
  }

  /** Inserts a new call with a creation instant no other gateway of a cluster took. */
  insertUnique<T>(row: CallRow, insert: (row: CallRow) => Promise<T>): Promise<T> {
    return insertWithUniqueCreatedAt(this.clock, row, insert, (err) => this.repo.createdAtTaken(err));
  }

  // ---- queries ----------------------------------------------------------------------------

  async get(callId: string): Promise<Call> {
    return presentCall(await this.row(callId));
  }

  async row(callId: string): Promise<CallRow> {
    const row = await this.repo.get(callId);
    if (!row) throw notFound('Call');
    return row;
  }

  async list(query: CallQuery): Promise<{ calls: Call[]; nextBefore: string | null }> {
    const before = query.before ? normalizeTimestamp(query.before) : undefined;
    const after = query.after ? normalizeTimestamp(query.after) : undefined;
    const rows = await this.repo.list({ ...query, before, after, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const more = rows.length > query.limit;
    return { calls: page.map(presentCall), nextBefore: more ? (page[page.length - 1]?.created_at ?? null) : null };
  }

  async events(callId: string): Promise<CallEvent[]> {
    await this.row(callId);
    return (await this.repo.events(callId)).map((e) => ({
      event: e.event as CallEvent['event'],
      eventId: e.event_id,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
      occurredAt: e.occurred_at,
      receivedAt: e.received_at,
    }));
  }

  async transcript(callId: string): Promise<TranscriptLine[]> {
    await this.row(callId);
    return (await this.repo.transcript(callId)).map((l) => ({ role: l.role as TranscriptLine['role'], text: l.text, at: l.at }));
  }

  // ---- writes that move no state ----------------------------------------------------------

  async addTranscriptLine(callId: string, line: TranscriptLine): Promise<void> {
    await this.repo.insertTranscriptLine({ call_id: callId, role: line.role, text: line.text, at: line.at });
  }

  /** The digits the phone acknowledged playing, on the timeline as the gateway's own record (GATEWAY_EVENT_NAMES). */
  async recordDtmfSent(row: CallRow, command: Command): Promise<void> {
    const payload = { digits: command.payload.digits, source: 'api', commandId: command.commandId };
    await this.note(row, 'gateway.dtmf_sent', `gw-${command.commandId}`, payload);
  }

  /**
   * Something the gateway did on a call that the phone reports no event for (an assistant that could
   * not join), on the timeline as the gateway's own record (GATEWAY_EVENT_NAMES). No state, no webhook.
   */
  async recordGatewayNote(callId: string, event: Exclude<GatewayEventName, 'gateway.dtmf_sent'>, payload: Record<string, unknown>): Promise<void> {
    await this.note(await this.row(callId), event, `gw-${randomUUID()}`, payload);
  }

  private async note(row: CallRow, event: GatewayEventName, eventId: string, payload: Record<string, unknown>): Promise<void> {
    const at = new Date().toISOString();
    await this.repo.insertEvent({ device_id: row.device_id, event_id: eventId, call_id: row.id, event, payload: JSON.stringify(payload), occurred_at: at, received_at: at });
  }

  // ---- what other domains keep on a call, for a node that takes it over -------------------

  /** Stores the call's stream configuration (the streams domain owns what happens next). */
  async setStream(callId: string, stream: StreamConfig | null): Promise<Call> {
    await this.repo.update(callId, { stream: stream ? JSON.stringify(stream) : null, stream_detached_at: null, updated_at: new Date().toISOString() });
    return this.get(callId);
  }

  /** Remembers that the call's stream was detached, so a node that takes the call over does not open it again. */
  async markStreamDetached(callId: string): Promise<void> {
    await this.repo.update(callId, { stream_detached_at: new Date().toISOString() });
  }

  /** Remembers whether the built-in assistant holds the call, for a node that takes the call over. */
  async markAssistantHeld(callId: string, held: boolean): Promise<void> {
    await this.repo.update(callId, { assistant_at: held ? new Date().toISOString() : null });
  }

  /** Whether the built-in assistant held the call (it was given it, and neither handed it back nor failed). */
  async assistantHeld(callId: string): Promise<boolean> {
    return Boolean((await this.repo.get(callId))?.assistant_at);
  }
}
