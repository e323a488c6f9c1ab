import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { show, testScope, type ErrorBody } from '../helpers/phones.js';
import { clusterDatabase, logRecords, newSecretKey, POSTGRES, startNode, type ClusterNode } from './support.js';

const t = testScope();

/**
 * Two nodes, read as a hostile client would: what reaches a node's port before the route's own
 * validation (the pass to the phone's node looks the phone up first) must answer as one gateway does.
 */
describe.skipIf(!POSTGRES)('two nodes: bad input on the way to the phone\'s node', () => {
  let db: Awaited<ReturnType<typeof clusterDatabase>>;
  let a: ClusterNode;
  let b: ClusterNode;

  beforeAll(async () => {
    db = await clusterDatabase();
    const secretKey = newSecretKey();
    [a, b] = await Promise.all([startNode({ databaseUrl: db.url, name: 'a', secretKey }), startNode({ databaseUrl: db.url, name: 'b', secretKey })]);
    // b knows it is not alone (it looks phones up) once a phone of a's is on the map.
    await t.phone(a);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  }, 30_000);

  it('answers 400 (not 500) to a call id or device id holding a NUL, as one gateway does', async () => {
    const unhandled = () => logRecords(b).filter((r) => r.msg === 'unhandled error');
    const call = await b.api<ErrorBody>('GET', '/v1/calls/a%00b');
    expect(call.status, show(call)).toBe(400);
    const action = await b.api<ErrorBody>('POST', '/v1/calls/a%00b/hangup');
    expect(action.status, show(action)).toBe(400);
    const device = await b.api<ErrorBody>('DELETE', '/v1/devices/a%00b');
    expect(device.status, show(device)).toBe(400);
    const placed = await b.api<ErrorBody>('POST', '/v1/calls', { deviceId: 'a\u0000b', to: '+15550100' });
    expect(placed.status, show(placed)).toBe(400);
    expect(placed.body.error.code).toBe('VALIDATION_ERROR');
    expect(unhandled()).toEqual([]);
  });

  // A stale row can name a node address that something else now answers, with any status line.
  it('passes no client an answer no node gives (status 999) from where a phone\'s node is registered: it serves the request itself', async () => {
    const impostor = http.createServer((_req, res) => res.writeHead(999).end('{}'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    t.defer(() => new Promise<void>((resolve) => impostor.close(() => resolve())));
    const url = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    const { deviceId } = await t.phone(a);
    await db.query(`insert into cluster_nodes (id, url) values ('impostor', $1)`, [url]);
    const [held] = await db.query<{ node_id: string }>(`select node_id from phone_connections where device_id = $1`, [deviceId]);
    await db.query(`update phone_connections set node_id = 'impostor' where device_id = $1`, [deviceId]);
    try {
      const placed = await b.api<ErrorBody>('POST', '/v1/calls', { deviceId, to: '+15550100' });
      // Not reachable as a node: b serves the request itself, as when a node cannot be reached at all.
      expect(placed.status, show(placed)).toBe(409);
      expect(placed.body.error.code).toBe('DEVICE_OFFLINE');
      expect((await b.api('GET', '/health')).status).toBe(200);
    } finally {
      await db.query(`update phone_connections set node_id = $1 where device_id = $2`, [held!.node_id, deviceId]);
      await db.query(`delete from cluster_nodes where id = 'impostor'`);
    }
  });
});
