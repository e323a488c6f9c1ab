import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { TEST_API_KEY } from '../helpers/gateway.js';
import {
  callInState,
  until,
  getDevice,
  pairCredentials,
  pairingCode,
  show,
  testScope,
  type Call,
  type ErrorBody,
} from '../helpers/phones.js';
import { openLive } from '../console/support.js';
import { KEY } from '../assistant/support.js';
import { startFakeRealtime, type FakeRealtime } from '../fakes/realtime-server.js';
import { MAX_MEDIA_SOCKETS_PER_CALL } from '../../src/media/media-socket.js';
import { agent, openMedia, placeCall, rampPcm, streamInfo, TONE, type PeerSocket } from '../streams/helpers.js';
import { clusterDatabase, logged, logRecords, newSecretKey, POSTGRES, startNode, type ClusterNode } from './support.js';


const t = testScope();
const auth = { authorization: `Bearer ${TEST_API_KEY}` };

/**
 * Two gateways on one PostgreSQL database (issue 14, points 1, 2, 3, 5 and 8): a phone connected to
 * node A is driven, streamed, listened to and watched through node B.
 */
describe.skipIf(!POSTGRES)('two nodes: requests for a phone are served by the node that holds it', () => {
  let db: Awaited<ReturnType<typeof clusterDatabase>>;
  let realtime: FakeRealtime;
  let a: ClusterNode;
  let b: ClusterNode;

  beforeAll(async () => {
    db = await clusterDatabase();
    realtime = await startFakeRealtime({ requireKey: KEY });
    const secretKey = newSecretKey();
    const env = { ASSISTANT_REALTIME_URL: realtime.url };
    const timings = { incomingAutoStreamDelayMs: 100 };
    [a, b] = await Promise.all([startNode({ databaseUrl: db.url, name: 'a', secretKey, env, timings }), startNode({ databaseUrl: db.url, name: 'b', secretKey, env, timings })]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await realtime?.close();
    await db?.drop();
  }, 30_000);

  it('registers each node with its address and a heartbeat that moves', async () => {
    const nodes = await db.query<{ id: string; url: string }>('select id, url from cluster_nodes where reaped_at is null order by id');
    expect(nodes).toEqual(expect.arrayContaining([{ id: a.nodeId, url: a.url }, { id: b.nodeId, url: b.url }]));
    const beat = async () => (await db.query<{ at: Date }>('select heartbeat_at as at from cluster_nodes where id = $1', [a.nodeId]))[0]!.at.getTime();
    const first = await beat();
    await until(beat, (at) => at > first, { what: 'a newer heartbeat of node a' });
  });

  it('places, controls and hangs up a call through the node that does not hold the phone', async () => {
    const phone = await t.phone(a, { dial: { outcome: 'answer', ringMs: 50 } });
    const placed = await b.api<{ call: Call; command: { action: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' });
    expect(placed.status, show(placed)).toBe(202);
    expect(placed.body.command.action).toBe('dial');
    expect(phone.commands.map((c) => c.action)).toContain('dial');
    const callId = placed.body.call.id;
    await callInState(b, callId, 'active');

    const busy = await b.api<ErrorBody>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550101' });
    expect(busy.status, show(busy)).toBe(409);
    expect(busy.body.error.code).toBe('DEVICE_BUSY');
    for (const [action, state] of [['hold', 'held'], ['unhold', 'active']] as const) {
      const res = await b.api('POST', `/v1/calls/${callId}/${action}`);
      expect(res.status, `${action}: ${show(res)}`).toBe(202);
      await callInState(b, callId, state);
    }
    expect((await b.api('POST', `/v1/calls/${callId}/dtmf`, { digits: '12#' })).status).toBe(202);
    const hangup = await b.api<{ call: Call }>('POST', `/v1/calls/${callId}/hangup`);
    expect(hangup.status, show(hangup)).toBe(202);
    await callInState(b, callId, 'ended');
    // Served by node a: its log says so, node b's does not.
    const acknowledged = (node: ClusterNode) => logRecords(node).filter((r) => r.msg === 'command acknowledged' && r.callId === callId).map((r) => r.action);
    await logged(a, (r) => r.msg === 'command acknowledged' && r.callId === callId && r.action === 'hangup', 'the hangup');
    expect(acknowledged(a)).toEqual(['hold', 'unhold', 'dtmf', 'hangup']);
    expect(acknowledged(b)).toEqual([]);
  });

  it('answers 409 DEVICE_OFFLINE, 504 DEVICE_TIMEOUT and the phone\'s own 409 through the other node as one node would', async () => {
    const offline = await pairCredentials(a, 'Offline phone');
    const notConnected = await b.api<ErrorBody>('POST', '/v1/calls', { deviceId: offline.deviceId, to: '+15550100' });
    expect(notConnected.status, show(notConnected)).toBe(409);
    expect(notConnected.body.error.code).toBe('DEVICE_OFFLINE');

    const silent = await t.phone(a, { ackBehaviour: 'silent' });
    const timedOut = await b.api<ErrorBody>('POST', '/v1/calls', { deviceId: silent.deviceId, to: '+15550100' });
    expect(timedOut.status, show(timedOut)).toBe(504);
    expect(timedOut.body.error.code).toBe('DEVICE_TIMEOUT');

    const refusing = await t.phone(a, { ackBehaviour: { ok: false, code: 'NO_SIM', message: 'No SIM card is ready' } });
    const refused = await b.api<ErrorBody>('POST', '/v1/calls', { deviceId: refusing.deviceId, to: '+15550100' });
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'NO_SIM', message: 'No SIM card is ready' });
  });

  it('gives calls created at the same moment on both nodes creation instants of their own', async () => {
    const nodeOf = (i: number) => (i % 2 === 0 ? a : b);
    const phones = await Promise.all(Array.from({ length: 16 }, (_, i) => t.phone(nodeOf(i), { dial: { outcome: 'manual' } })));
    // Each node makes its first call of a millisecond at that millisecond's first microsecond: both nodes at once collide.
    const placed = await Promise.all(phones.slice(0, 8).map((phone, i) => nodeOf(i).api<{ call: Call }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' })));
    expect(placed.map((res) => res.status), placed.map(show).join('\n')).toEqual(Array<number>(8).fill(202));
    const rung = await Promise.all(phones.slice(8).map((phone) => phone.ringIncoming('+15550111')));
    const calls = await Promise.all([...placed.map((res) => res.body.call.id), ...rung].map((callId) => a.api<{ call: Call }>('GET', `/v1/calls/${callId}`)));
    const createdAt = calls.map((res) => res.body.call.createdAt);
    expect(new Set(createdAt).size).toBe(16);
  });

  it('runs a call\'s agent stream on the phone\'s node and proxies a media socket opened on the other node', async () => {
    const phone = await t.phone(a, { dial: { outcome: 'answer', ringMs: 30 }, audio: TONE });
    const fake = await agent(t);
    const { call } = await placeCall(b, phone, { stream: { url: fake.url, parameters: { team: 'blue' } } });
    const conn = await fake.connection();
    expect((await conn.message((m) => m.type === 'start')).team).toBe('blue');
    await conn.frames(5);
    await until(() => streamInfo(b, call.id), (info) => info.status === 'live', { what: 'stream live, read through node b' });
    const read = await b.api<{ media: { streaming: boolean } }>('GET', `/v1/calls/${call.id}`);
    expect(read.body.media.streaming).toBe(true);

    // The agent speaks: the phone hears it, played out by node a.
    conn.sendBinary(rampPcm(1600));
    await phone.waitFor((s) => s.received.frames >= 5, 5000);

    const media = await openMedia(b, call.id, auth);
    if (!media.ok) throw new Error(`media socket refused: ${media.status} ${JSON.stringify(media.body)}`);
    expect(await media.peer.message((m) => m.type === 'start')).toMatchObject({ callId: call.id, deviceId: phone.deviceId });
    await media.peer.frames(5);
    const before = phone.received.frames;
    media.peer.sendBinary(rampPcm(3200, 7));
    await phone.waitFor((s) => s.received.frames >= before + 8, 5000);
    await logged(a, (r) => r.msg === 'media socket opened' && r.callId === call.id, 'the media socket');
    expect(logRecords(b).some((r) => r.msg === 'media socket opened')).toBe(false);

    expect((await b.api('POST', `/v1/calls/${call.id}/hangup`)).status).toBe(202);
    expect((await media.peer.message((m) => m.type === 'stop')).callId).toBe(call.id);
    await conn.message((m) => m.type === 'stop');
  });

  it(`keeps the cap of ${MAX_MEDIA_SOCKETS_PER_CALL} media sockets per call for sockets opened through the other node, and passes its 409 on`, async () => {
    const phone = await t.phone(a, { dial: { outcome: 'answer', ringMs: 20 }, audio: TONE });
    const { call } = await placeCall(b, phone);
    await callInState(b, call.id, 'active');
    const sockets: PeerSocket[] = [];
    // Half on the phone's node, half proxied from the other: the cap counts them together.
    while (sockets.length < MAX_MEDIA_SOCKETS_PER_CALL) {
      const outcome = await openMedia(sockets.length % 2 === 0 ? a : b, call.id, auth);
      if (!outcome.ok) throw new Error(`media socket ${sockets.length + 1} refused: ${outcome.status} ${JSON.stringify(outcome.body)}`);
      t.defer(() => outcome.peer.close());
      sockets.push(outcome.peer);
    }
    const refused = await openMedia(b, call.id, auth);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.status).toBe(409);
      expect((refused.body as ErrorBody).error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`${MAX_MEDIA_SOCKETS_PER_CALL} media sockets`) });
    }
    // A proxied socket that closes frees its place on the phone's node.
    await sockets.splice(1, 1)[0]!.close();
    const again = await until(() => openMedia(b, call.id, auth), (outcome) => outcome.ok, { what: 'a media socket after one closed' });
    if (again.ok) t.defer(() => again.peer.close());
    expect((await b.api('POST', `/v1/calls/${call.id}/hangup`)).status).toBe(202);
  });

  it('answers an incoming call with the incoming stream set on the other node, and hands a call to the assistant through it: both run on the phone\'s node', async () => {
    const fake = await agent(t);
    expect((await b.api('PUT', '/v1/settings', { incomingStreamUrl: fake.url, assistantApiKey: KEY })).status).toBe(200);
    await until(() => a.api<{ settings: { incomingStreamUrl: string | null } }>('GET', '/v1/settings'), (res) => res.body.settings.incomingStreamUrl === fake.url, {
      what: 'node a reading the incoming stream',
    });
    const phone = await t.phone(a, { audio: TONE });
    const streamed = await phone.ringIncoming('+15550122');
    const conn = await fake.connection(0);
    expect(await conn.message((m) => m.type === 'start')).toMatchObject({ callId: streamed, direction: 'incoming' });
    await conn.frames(3);
    await b.api('POST', `/v1/calls/${streamed}/hangup`);
    await callInState(b, streamed, 'ended');

    expect((await b.api('PUT', '/v1/settings', { incomingStreamUrl: '' })).status).toBe(200);
    await until(() => a.api<{ settings: { incomingStreamUrl: string | null } }>('GET', '/v1/settings'), (res) => res.body.settings.incomingStreamUrl === null, {
      what: 'node a without the incoming stream',
    });
    const ringing = await phone.ringIncoming('+15550123');
    const taken = await b.api<{ status: string }>('POST', `/v1/calls/${ringing}/agent`);
    expect(taken.status, show(taken)).toBe(202);
    await realtime.waitForEvent('response.create', undefined, 5000);
    await until(() => b.api<{ status: string }>('GET', `/v1/calls/${ringing}/agent`), (res) => res.body.status === 'live', { what: 'the assistant live, read through node b' });
    await b.api('POST', `/v1/calls/${ringing}/hangup`);
    await callInState(b, ringing, 'ended');
  });

  it('shows a phone\'s connected, lastSeenAt and latencyMs on every node, and pushes its changes to consoles on every node', async () => {
    const live = await openLive(b, auth);
    t.defer(() => live.close());
    const phone = await t.phone(a, { name: 'Desk phone', dial: { outcome: 'answer', ringMs: 30 } });
    const connected = await live.next((m) => m.type === 'device' && m.deviceId === phone.deviceId && m.device?.connected === true);
    expect(connected.device).toMatchObject({ name: 'Desk phone', connected: true });

    const device = await until(() => getDevice(b, phone.deviceId!), (d) => d.connected && d.latencyMs !== null && d.lastSeenAt !== null, {
      what: 'latency measured on node a, shown by node b',
    });
    expect(device.latencyMs).toBeGreaterThanOrEqual(0);

    // Metadata of 10 KB: too large for a NOTIFY, the message goes through the table.
    const notes = 'n'.repeat(10_000);
    const { call } = await placeCall(a, phone, { metadata: { notes } });
    const active = await live.next((m) => m.type === 'call' && m.call.id === call.id && m.call.state === 'active');
    expect(active.call.metadata.notes).toBe(notes);
    await a.api('POST', `/v1/calls/${call.id}/hangup`);
    await live.next((m) => m.type === 'call' && m.call.id === call.id && m.call.state === 'ended');

    await phone.disconnect();
    await live.next((m) => m.type === 'device' && m.deviceId === phone.deviceId && m.device?.connected === false);
    expect((await getDevice(b, phone.deviceId!)).connected).toBe(false);
  });

  it('puts a settings change and a rotated secret made on one node in force on the other within 5 s', async () => {
    const receiver = await t.receiver();
    const updated = await a.api('PUT', '/v1/settings', { webhookUrl: receiver.url, assistantApiKey: 'sk-cluster-test-0042' });
    expect(updated.status, show(updated)).toBe(200);
    const rotated = await a.api<{ secret: string }>('POST', '/v1/settings/webhook-secret');
    const secret = rotated.body.secret;
    const settings = await until(
      () => b.api<{ settings: { webhookUrl: string; webhookSecret: { hint: string }; assistantApiKey: { hint: string } } }>('GET', '/v1/settings'),
      (res) => res.body.settings.webhookUrl === receiver.url && res.body.settings.webhookSecret.hint === secret.slice(-4),
      { timeoutMs: 5000, what: 'node b reading what node a saved' },
    );
    expect(settings.body.settings.assistantApiKey.hint).toBe('0042');

    // A phone on node b: its webhook goes to the URL set on node a, signed with the secret node a sealed.
    const phone = await t.phone(b);
    const callId = await phone.ringIncoming('+15550199');
    const hook = await receiver.waitUntil((r) => r.body.call?.id === callId);
    expect(() => new Webhook(secret).verify(hook.raw, { 'webhook-id': hook.headers['webhook-id']!, 'webhook-timestamp': hook.headers['webhook-timestamp']!, 'webhook-signature': hook.headers['webhook-signature']! })).not.toThrow();
    await b.api('PUT', '/v1/settings', { webhookUrl: '' });
  });

  it('makes each due webhook attempt on exactly one node, keeping each call\'s first attempts in order', async () => {
    const receiver = await t.receiver();
    const calls = Array.from({ length: 20 }, (_, i) => `call_cluster${String(i).padStart(8, '0')}`);
    const jobs = calls.flatMap((callId) => Array.from({ length: 10 }, (_, n) => ({ callId, eventId: randomUUID(), n })));
    const now = new Date().toISOString();
    // Stored as a node that died would leave them: no live node holds them, both nodes claim.
    for (const job of jobs) {
      const body = JSON.stringify({ event: 'call.ringing', eventId: job.eventId, occurredAt: now, receivedAt: now, payload: { n: job.n }, call: { id: job.callId } });
      await db.query(`insert into webhook_jobs (call_id, event_id, event, url, body, attempt, due_at, claimed_by) values ($1, $2, 'call.ringing', $3, $4, 1, $5, 'node-gone')`, [
        job.callId,
        job.eventId,
        receiver.url,
        body,
        now,
      ]);
    }
    await receiver.waitFor(jobs.length, 15_000);
    await until(() => db.query<{ n: string }>('select count(*) as n from webhook_jobs'), (rows) => Number(rows[0]!.n) === 0, { what: 'every job done' });
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(jobs.length);
    expect(ids).toHaveLength(jobs.length);
    for (const callId of calls) {
      expect(receiver.of(callId).map((r) => r.body.payload.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
    const deliveries = await db.query<{ event_id: string; n: string }>(`select event_id, count(*) as n from webhook_deliveries where call_id like 'call_cluster%' group by event_id`);
    expect(deliveries).toHaveLength(jobs.length);
    expect(deliveries.every((d) => Number(d.n) === 1)).toBe(true);
  });

  it('keeps a call\'s first attempt waiting while an earlier one of the same call is held by another live node', async () => {
    const receiver = await t.receiver();
    const now = new Date().toISOString();
    const insert = async (callId: string, claimedBy: string | null) => {
      const eventId = randomUUID();
      const body = JSON.stringify({ event: 'call.active', eventId, occurredAt: now, receivedAt: now, payload: {}, call: { id: callId } });
      await db.query(`insert into webhook_jobs (call_id, event_id, event, url, body, attempt, due_at, claimed_by) values ($1, $2, 'call.active', $3, $4, 1, $5, $6)`, [
        callId,
        eventId,
        receiver.url,
        body,
        now,
        claimedBy,
      ]);
      return eventId;
    };
    // A third live node holds the call's first event (as if its attempt were in flight there); the next one waits unclaimed.
    await db.query(`insert into cluster_nodes (id, url) values ('node-third', 'http://127.0.0.1:9')`);
    const beat = setInterval(() => void db.query(`update cluster_nodes set heartbeat_at = now() where id = 'node-third'`), 200);
    t.defer(() => clearInterval(beat));
    await insert('call_orderedacrossnodes', 'node-third');
    const waiting = await insert('call_orderedacrossnodes', null);
    // A later job of another call goes out: both nodes have polled since the waiting job was stored.
    const sentinel = await insert('call_sentinel000000000', null);
    await receiver.waitUntil((r) => r.headers['webhook-id'] === sentinel);
    const rows = await db.query<{ claimed_by: string | null }>('select claimed_by from webhook_jobs where event_id = $1', [waiting]);
    expect(rows).toEqual([{ claimed_by: null }]);
    expect(receiver.requests.some((r) => r.headers['webhook-id'] === waiting)).toBe(false);

    // The third node is done with its attempt: the waiting one goes out.
    await db.query(`delete from webhook_jobs where call_id = 'call_orderedacrossnodes' and claimed_by = 'node-third'`);
    await receiver.waitUntil((r) => r.headers['webhook-id'] === waiting);
  });

  // Last: the failures it counts hold the test's address for a minute.
  it('redeems a pairing code made on one node on the other, once, and counts failed codes across nodes', async () => {
    const code = await pairingCode(a);
    const pair = (node: ClusterNode, body: object) => node.api<{ deviceId: string }>('POST', '/v1/phone/pair', body, { key: null });
    const redeemed = await pair(b, { code, name: 'Paired on b' });
    expect(redeemed.status, show(redeemed)).toBe(200);
    expect((await pair(a, { code, name: 'Again on a' })).status).toBe(401);

    // Ten failures per client address and minute, wherever they land (both nodes see the test as
    // 127.0.0.1): the reused code was the first, nine more alternate between the nodes, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await pair(i % 2 === 0 ? a : b, { code: 'WRONGCODE0', name: 'x' })).status);
    expect(statuses).toEqual([...Array<number>(9).fill(401), 429]);
    const limitedA = await pair(a, { code: await pairingCode(a), name: 'y' });
    const limitedB = await pair(b, { code: await pairingCode(b), name: 'z' });
    expect([limitedA.status, limitedB.status]).toEqual([429, 429]);
    expect(Number(limitedB.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts failed sign-ins of one account across nodes, keeping neither the address nor the client in clear', async () => {
    const email = 'limited@example.com';
    const login = (node: ClusterNode) => node.api('POST', '/v1/auth/login', { email, password: 'not the password' }, { key: null, headers: { origin: node.url } });
    // Five failures per account and client, wherever they land, then 429 on either node.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await login(i % 2 === 0 ? a : b)).status);
    expect(statuses).toEqual([...Array<number>(5).fill(401), 429]);
    expect((await login(b)).status).toBe(429);
    const keys = await db.query<{ key: string }>('select key from rate_limit_failures');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.key.includes('example.com') || k.key.includes('127.0.0.1'))).toEqual([]);
  });
});
