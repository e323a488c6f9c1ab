import { afterEach, describe, expect, it } from 'vitest';
import { PhoneSimulator } from '../../src/simulator/index.js';
import { callInState, until, getDevice, pairingCode, show, testScope } from '../helpers/phones.js';
import { agent, openMedia, TONE, type PeerSocket } from '../streams/helpers.js';
import WebSocket from 'ws';
import { agentInfo, eventsOf, KEY } from '../assistant/support.js';
import { startFakeRealtime } from '../fakes/realtime-server.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { Balancer, clusterDatabase, newSecretKey, POSTGRES, startNode } from './support.js';


const t = testScope();
const started: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of started.splice(0).reverse()) await stop();
}, 30_000);

/** How many `media` messages (20 ms of the caller each) an agent got. */
const mediaCount = (conn: PeerSocket): number => conn.messages.filter((m) => m.event === 'media').length;

describe.skipIf(!POSTGRES)('failover (issue 14, point 6)', () => {
  it('kill -9 of the node holding a phone with a live streamed call: the phone reconnects through the balancer, the call goes on, the stream opens again from the other node, the pending webhook is delivered', async () => {
    const db = await clusterDatabase();
    started.push(() => db.drop());
    const secretKey = newSecretKey();
    // Retries 3 s apart: the call's second webhook attempt is still pending when its node dies.
    const env = { WEBHOOK_RETRY_DELAYS: '3s,3s,3s' };
    const [a, b] = await Promise.all([startNode({ databaseUrl: db.url, name: 'a', secretKey, env }), startNode({ databaseUrl: db.url, name: 'b', secretKey, env })]);
    started.push(() => b.stop(), () => a.kill());
    const balancer = await Balancer.start([a.port, b.port]);
    started.push(() => balancer.close());
    const receiver = await t.receiver();
    const fake = await agent(t);

    const phone = t.track(
      new PhoneSimulator({ gatewayUrl: balancer.url, name: 'Failover phone', audio: TONE, dial: { outcome: 'answer', ringMs: 50 }, reconnectDelayMs: { initial: 100, max: 2000 } }),
    );
    await phone.pair(await pairingCode(a));
    // The phone reaches the gateways only through the balancer, which sends it to node a first.
    balancer.prefer(a.port);
    await phone.connect();
    const holder = async () => (await db.query<{ node_id: string }>('select node_id from phone_connections where device_id = $1', [phone.deviceId]))[0]?.node_id;
    expect(await holder()).toBe(a.nodeId);

    receiver.failNext(1);
    const placed = await b.api<{ call: { id: string } }>('POST', '/v1/calls', {
      deviceId: phone.deviceId,
      to: '+15550100',
      webhookUrl: receiver.url,
      stream: { url: fake.url, format: 'vendor', parameters: { agent: 'support' } },
    });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    const first = await fake.connection(0);
    const start1 = await first.message((m) => m.event === 'start');
    expect(start1.start).toMatchObject({ callSid: callId, customParameters: { callId, agent: 'support' } });
    expect(start1.start.customParameters.resumed).toBeUndefined();
    await until(async () => mediaCount(first), (n) => n >= 5, { what: 'call audio at the agent through node a' });
    // The first webhook failed on node a; its retry waits there.
    const failed = await receiver.waitUntil((r) => r.body.call?.id === callId);
    await until(() => db.query<{ claimed_by: string }>('select claimed_by from webhook_jobs where call_id = $1', [callId]), (rows) => rows.some((r) => r.claimed_by === a.nodeId), {
      what: 'the retry held by node a',
    });

    const reconnected = phone.waitFor('connected', 10_000);
    await a.kill();
    // Within 10 s the phone is back, through the balancer, on node b; its hello names the call.
    await reconnected;
    expect(await holder()).toBe(b.nodeId);

    // The agent's stream is opened again from node b: a new connected + start for the same callSid, resumed.
    const second = await fake.connection(1, 5000);
    const messages = await Promise.all([second.message((m) => m.event === 'connected'), second.message((m) => m.event === 'start')]);
    expect(messages[1].start).toMatchObject({ callSid: callId, customParameters: { callId, agent: 'support', resumed: 'true' } });
    expect(messages[1].streamSid).not.toBe(start1.streamSid);
    await until(async () => mediaCount(second), (n) => n >= 5, { what: 'call audio at the agent through node b' });
    const heard = phone.received.frames;
    second.send({ event: 'media', streamSid: messages[1].streamSid, media: { payload: Buffer.alloc(1600, 0x55).toString('base64') } });
    await phone.waitFor((s) => s.received.frames >= heard + 5, 5000);
    expect((await callInState(b, callId, 'active')).state).toBe('active');

    // Node a is declared dead once its lease runs out, and its pending webhook attempt is made by node b.
    await until(() => db.query<{ reaped_at: Date | null }>('select reaped_at from cluster_nodes where id = $1', [a.nodeId]), (rows) => rows[0]?.reaped_at != null, {
      timeoutMs: 10_000,
      what: 'node a declared dead',
    });
    const retried = await receiver.waitUntil((r) => r.headers['webhook-id'] === failed.headers['webhook-id'] && r.n > failed.n, 10_000);
    expect(retried.body.event).toBe(failed.body.event);

    const hangup = await b.api('POST', `/v1/calls/${callId}/hangup`);
    expect(hangup.status, show(hangup)).toBe(202);
    await second.message((m) => m.event === 'stop');
    await callInState(b, callId, 'ended');
    await receiver.waitUntil((r) => r.body.call?.id === callId && r.body.event === 'call.disconnected');
  }, 60_000);

  it('a phone whose connection moves to another live node: the first node lets the call go, the second takes it up', async () => {
    const db = await clusterDatabase();
    started.push(() => db.drop());
    const secretKey = newSecretKey();
    const [a, b] = await Promise.all([startNode({ databaseUrl: db.url, name: 'a', secretKey }), startNode({ databaseUrl: db.url, name: 'b', secretKey })]);
    started.push(() => b.stop(), () => a.stop());
    const balancer = await Balancer.start([a.port, b.port]);
    started.push(() => balancer.close());
    const fake = await agent(t);
    const phone = t.track(new PhoneSimulator({ gatewayUrl: balancer.url, name: 'Roaming phone', audio: TONE, dial: { outcome: 'answer', ringMs: 50 }, reconnectDelayMs: { initial: 50, max: 500 } }));
    await phone.pair(await pairingCode(a));
    balancer.prefer(a.port);
    await phone.connect();

    const placed = await a.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100', stream: { url: fake.url } });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    const first = await fake.connection(0);
    await first.message((m) => m.type === 'start');
    const media = await openMedia(a, callId, { authorization: `Bearer ${TEST_API_KEY}` });
    if (!media.ok) throw new Error(`media socket refused: ${media.status}`);
    await media.peer.frames(3);

    // The network drops; the phone comes back through the balancer to node b while node a lives on.
    balancer.prefer(b.port);
    const reconnected = phone.waitFor('connected', 10_000);
    phone.dropSocket();
    await reconnected;
    const second = await fake.connection(1);
    expect(await second.message((m) => m.type === 'start')).toMatchObject({ callId, resumed: 'true' });
    // Node a stops its stream (the call goes on) and its media socket.
    expect((await first.message((m) => m.type === 'stop')).callId).toBe(callId);
    await media.peer.closed;
    await second.frames(5);
    expect((await callInState(a, callId, 'active')).state).toBe('active');

    const hangup = await a.api('POST', `/v1/calls/${callId}/hangup`);
    expect(hangup.status, show(hangup)).toBe(202);
    await second.message((m) => m.type === 'stop');
    await callInState(b, callId, 'ended');
  }, 60_000);

  it('the assistant on a call whose phone moves to another live node: a new session there goes on from the transcript, the first ends without failing', async () => {
    const db = await clusterDatabase();
    started.push(() => db.drop());
    const secretKey = newSecretKey();
    const model = await startFakeRealtime({ requireKey: KEY });
    started.push(() => model.close());
    const env = { ASSISTANT_REALTIME_URL: model.url };
    const [a, b] = await Promise.all([startNode({ databaseUrl: db.url, name: 'a', secretKey, env }), startNode({ databaseUrl: db.url, name: 'b', secretKey, env })]);
    started.push(() => b.stop(), () => a.stop());
    const balancer = await Balancer.start([a.port, b.port]);
    started.push(() => balancer.close());
    expect((await a.api('PUT', '/v1/settings', { assistantApiKey: KEY })).status).toBe(200);
    const phone = t.track(new PhoneSimulator({ gatewayUrl: balancer.url, name: 'Assistant phone', audio: TONE, reconnectDelayMs: { initial: 50, max: 500 } }));
    await phone.pair(await pairingCode(a));
    balancer.prefer(a.port);
    await phone.connect();

    const callId = await phone.ringIncoming('+4915100000010');
    expect((await a.api('POST', `/v1/calls/${callId}/agent`)).status).toBe(202);
    await callInState(a, callId, 'active');
    await eventsOf(model, 0, 'response.create');
    model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_c1', content_index: 0, transcript: 'Hi, Max here, the roof leaks.' });
    await until(() => agentInfo(a, callId), (info) => info.transcript.length === 1, { what: 'the caller transcribed on node a' });

    // The network drops; the phone comes back through the balancer to node b while node a lives on.
    balancer.prefer(b.port);
    const reconnected = phone.waitFor('connected', 10_000);
    phone.dropSocket();
    await reconnected;
    const events = await eventsOf(model, 1, 'response.create');
    const update = events.find((e) => e.type === 'session.update');
    expect(String((update?.session as { instructions?: unknown }).instructions)).toContain('Caller: Hi, Max here, the roof leaks.');
    // Node a's session ends as the call moves: no failure tone, no hang-up, the assistant goes on at b.
    await until(async () => model.connections[0]!.socket.readyState, (state) => state === WebSocket.CLOSED, { what: "node a's model socket closed" });
    const info = await until(() => agentInfo(b, callId), (i) => i.status === 'live', { what: 'the assistant live on node b' });
    expect(info.error).toBeUndefined();
    expect((await callInState(b, callId, 'active')).state).toBe('active');

    expect((await b.api('POST', `/v1/calls/${callId}/hangup`)).status).toBe(202);
    await callInState(a, callId, 'ended');
  }, 60_000);

  it('a node paused for longer than its lease is declared dead, then joins again under a new id with its phones', async () => {
    const db = await clusterDatabase();
    started.push(() => db.drop());
    const secretKey = newSecretKey();
    const [a, b] = await Promise.all([startNode({ databaseUrl: db.url, name: 'a', secretKey }), startNode({ databaseUrl: db.url, name: 'b', secretKey })]);
    started.push(() => b.stop(), () => a.kill());
    const phone = await t.phone(a, { dial: { outcome: 'answer', ringMs: 30 }, pingIntervalMs: 60_000 });

    a.process.kill('SIGSTOP');
    started.push(async () => void a.process.kill('SIGCONT'));
    await until(() => db.query<{ reaped_at: Date | null }>('select reaped_at from cluster_nodes where id = $1', [a.nodeId]), (rows) => rows[0]?.reaped_at != null, {
      timeoutMs: 10_000,
      what: 'node a declared dead',
    });
    expect((await getDevice(b, phone.deviceId!)).connected).toBe(false);

    a.process.kill('SIGCONT');
    const rows = await until(
      () => db.query<{ node_id: string }>('select node_id from phone_connections where device_id = $1', [phone.deviceId]),
      (found) => found.length === 1 && found[0]!.node_id !== a.nodeId,
      { timeoutMs: 10_000, what: 'the phone held again by node a under its new id' },
    );
    expect((await db.query('select id from cluster_nodes where id = $1 and reaped_at is null', [rows[0]!.node_id])).length).toBe(1);
    await until(() => getDevice(b, phone.deviceId!), (device) => device.connected, { what: 'node b seeing the phone again' });
    const placed = await b.api('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' });
    expect(placed.status, show(placed)).toBe(202);
  }, 60_000);
});
