import path from 'node:path';
import Database from 'libsql';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/index.js';
import { migrationProvider, type Dialect } from '../../src/store/migrations/index.js';
import { SQLITE_FILE } from '../../src/store/index.js';
import { databaseFor, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { getEvents, phoneEvent, testScope } from '../helpers/phones.js';

const t = testScope();

/** The database of `dataDir` as the gateway left it before migration `before` shipped. */
async function databaseBefore(dataDir: string, before: string): Promise<Kysely<unknown>> {
  const dialect: Dialect = TEST_DATABASE_URL ? 'postgres' : 'sqlite';
  const db =
    dialect === 'postgres'
      ? new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: (await databaseFor(dataDir)).url, max: 1 }) }) })
      : new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(path.join(dataDir, SQLITE_FILE)) as unknown as SqliteDatabase }) });
  const all = await migrationProvider(dialect).getMigrations();
  const shipped = Object.fromEntries(Object.entries(all).filter(([name]) => name < before));
  const { error } = await new Migrator({ db, provider: { getMigrations: () => Promise.resolve(shipped) } }).migrateToLatest();
  if (error) throw error;
  return db;
}

describe('migration 005: event ids unique per phone', () => {
  it('keeps the events stored before it, in order, and their de-duplication per phone', async () => {
    const dataDir = t.tempDir();
    const db = await databaseBefore(dataDir, '005');
    const token = 'dt_migration-test-token-000000000000000';
    const at = '2026-01-01T00:00:00.000Z';
    await sql`insert into devices (id, name, token_hash, registered_at) values ('phone-aaaaaaaaaaaa', 'Old phone', ${sha256(token).toString('hex')}, ${at})`.execute(db);
    await sql`insert into calls (id, device_id, remote_number, direction, state, native_call_id, created_at, updated_at)
      values ('call_00000000000000000001', 'phone-aaaaaaaaaaaa', '+4930700', 'incoming', 'ringing', 'native-old', '2026-01-01T00:00:00.000001Z', ${at})`.execute(db);
    const ids = ['00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    for (const [i, id] of ids.entries()) {
      await sql`insert into call_events (event_id, call_id, event, payload, occurred_at, received_at)
        values (${id}, 'call_00000000000000000001', ${i === 0 ? 'call.ringing' : 'call.simulated_ringing'}, '{}', ${at}, ${at})`.execute(db);
    }
    await db.destroy();

    const g = await t.gateway({ dataDir });
    expect((await getEvents(g, 'call_00000000000000000001')).map((e) => e.eventId)).toEqual(ids);
    const phone = await t.raw(g, token, { call: { nativeCallId: 'native-old', callId: 'call_00000000000000000001', state: 'ringing' } });
    // An event stored before the migration, sent again, is still recognised as this phone's.
    const again = phoneEvent('call.ringing', 'native-old', { eventId: ids[0], direction: 'incoming', remoteNumber: '+4930700' });
    expect((await phone.event(again)).callId).toBe('call_00000000000000000001');
    const active = phoneEvent('call.active', 'native-old', { callId: 'call_00000000000000000001' });
    await phone.event(active);
    expect((await getEvents(g, 'call_00000000000000000001')).map((e) => e.eventId)).toEqual([...ids, active.eventId]);
  });
});

describe('migration 006: what the console\'s day needs', () => {
  it('gives calls that ended before it their cause from the timeline; their webhook attempts cannot be sent again', async () => {
    const dataDir = t.tempDir();
    const db = await databaseBefore(dataDir, '006');
    const at = '2026-01-01T00:00:00.000Z';
    const calls: Array<[string, string, Array<[string, string]>]> = [
      ['call_00000000000000000011', 'ended', [['call.active', '{}'], ['call.disconnected', '{"cause":"busy"}']]],
      ['call_00000000000000000012', 'ended', [['call.disconnected', '{"cause":"remote","reason":" gone "}'], ['call.disconnected', '{"cause":"local"}']]],
      ['call_00000000000000000013', 'failed', [['call.failed', '{"reason":"no service"}']]],
      ['call_00000000000000000014', 'ended', [['call.disconnected', '{"cause":"meteor"}']]],
      ['call_00000000000000000015', 'active', [['call.active', '{}']]],
    ];
    for (const [i, [id, state, events]] of calls.entries()) {
      await sql`insert into calls (id, device_id, remote_number, direction, state, created_at, updated_at)
        values (${id}, 'phone-aaaaaaaaaaaa', '+4930700', 'outgoing', ${state}, ${`2026-01-01T00:00:00.00000${i}Z`}, ${at})`.execute(db);
      for (const [event, payload] of events) {
        await sql`insert into call_events (device_id, event_id, call_id, event, payload, occurred_at, received_at)
          values ('phone-aaaaaaaaaaaa', ${`${id}-${event}-${payload.length}`}, ${id}, ${event}, ${payload}, ${at}, ${at})`.execute(db);
      }
    }
    await sql`insert into webhook_deliveries (call_id, event_id, event, url, attempt, ok, status_code, error, duration_ms, at)
      values ('call_00000000000000000011', 'evt-old', 'call.active', 'http://127.0.0.1:9/hook', 4, 0, 500, 'HTTP 500', 3, ${at})`.execute(db);
    await db.destroy();

    const g = await t.gateway({ dataDir });
    const listed = await g.api<{ calls: Array<{ id: string; endCause?: string; endReason?: string }> }>('GET', '/v1/calls');
    expect(listed.body.calls.map((c) => [c.id.slice(-2), c.endCause, c.endReason])).toEqual([
      ['15', undefined, undefined],
      ['14', 'other', undefined],
      ['13', 'failed', 'no service'],
      ['12', 'remote', 'gone'],
      ['11', 'busy', undefined],
    ]);
    const old = await g.api<{ deliveries: Array<{ id: number }> }>('GET', '/v1/webhook-deliveries');
    const retry = await g.api<{ error: { code: string; message: string } }>('POST', `/v1/webhook-deliveries/${old.body.deliveries[0]!.id}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body.error.message).toMatch(/recorded before/);
  });
});

describe('migration 007: a webhook body kept once per delivery', () => {
  it('drops the copies on later attempts, and their rows are still sent again with the first one\'s body', async () => {
    const dataDir = t.tempDir();
    const rx = await t.receiver();
    const db = await databaseBefore(dataDir, '007');
    const at = '2026-01-01T00:00:00.000Z';
    const body = JSON.stringify({ event: 'call.ringing', eventId: 'evt-007', call: { id: 'call_00000000000000000021' } });
    await sql`insert into calls (id, device_id, remote_number, direction, state, created_at, updated_at)
      values ('call_00000000000000000021', 'phone-aaaaaaaaaaaa', '+4930700', 'incoming', 'ended', '2026-01-01T00:00:00.000001Z', ${at})`.execute(db);
    for (const attempt of [1, 2, 3]) {
      await sql`insert into webhook_deliveries (call_id, event_id, event, url, attempt, ok, status_code, error, duration_ms, at, body)
        values ('call_00000000000000000021', 'evt-007', 'call.ringing', ${rx.url}, ${attempt}, 0, 500, 'HTTP 500', 3, ${at}, ${body})`.execute(db);
    }
    await db.destroy();

    const g = await t.gateway({ dataDir });
    const rows = await g.store.db.selectFrom('webhook_deliveries').select(['id', 'attempt', 'body']).orderBy('id').execute();
    expect(rows.map((r) => [r.attempt, r.body])).toEqual([
      [1, body],
      [2, null],
      [3, null],
    ]);
    expect((await g.api('POST', `/v1/webhook-deliveries/${rows[2]!.id}/retry`)).status).toBe(202);
    const [sent] = await rx.waitFor(1);
    expect(sent!.raw).toBe(body);
    expect(sent!.headers['webhook-id']).toBe('evt-007');
  });
});
