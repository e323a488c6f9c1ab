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
});
