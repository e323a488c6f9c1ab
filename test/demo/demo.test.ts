import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_PHONE_NAME, startDemo, type Demo } from '../../src/demo/index.js';
import { apiClient, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/phones.js';

let g: TestGateway | undefined;
const demos: Demo[] = [];
afterEach(async () => {
  for (const demo of demos.splice(0)) await demo.stop();
  await g?.stop();
  g = undefined;
});

describe('demo mode', () => {
  it('pairs a simulated phone, makes a key, and the printed call reaches its signed webhooks and timeline', async () => {
    // No HTTP_GATEWAY_API_KEY: the demo makes a key of its own, as on a fresh clone.
    g = await startTestGateway({ env: { HTTP_GATEWAY_API_KEY: '' } });
    const lines: string[] = [];
    const demo = await startDemo(g, (line) => lines.push(line));
    demos.push(demo);

    expect(demo.apiKey).toMatch(/^gw_/);
    expect(demo.banner).toContain(demo.deviceId);
    const curl = demo.banner.split('\n').find((l) => l.includes('curl -s -X POST'));
    expect(curl).toContain(`Bearer ${demo.apiKey}`);
    const body = JSON.parse(/-d '([^']+)'/.exec(curl ?? '')?.[1] ?? '{}') as Record<string, unknown>;
    expect(body).toEqual({ deviceId: demo.deviceId, to: '+15550100', webhookUrl: demo.webhookUrl });

    const api = apiClient(g.url, demo.apiKey);
    const devices = await api<{ devices: Array<{ id: string; connected: boolean }> }>('GET', '/v1/devices');
    expect(devices.body.devices).toEqual([expect.objectContaining({ id: demo.deviceId, connected: true })]);

    const placed = await api<{ call: { id: string } }>('POST', '/v1/calls', body);
    expect(placed.status).toBe(202);
    const callId = placed.body.call.id;
    await eventually(async () => lines.filter((l) => l.startsWith('webhook')), (w) => w.length >= 2, { timeoutMs: 8000, what: 'two webhooks printed' });
    expect(lines.filter((l) => l.startsWith('webhook'))).toEqual([
      `webhook  call.dialing  call ${callId} is dialing  (signature ok)`,
      `webhook  call.active  call ${callId} is active  (signature ok)`,
    ]);
    const events = await api<{ events: Array<{ event: string }> }>('GET', `/v1/calls/${callId}/events`);
    expect(events.body.events.map((e) => e.event)).toEqual(['call.dialing', 'call.active']);
  });

  it('replaces the previous demo phone and key when started again', async () => {
    g = await startTestGateway({ env: { HTTP_GATEWAY_API_KEY: '' } });
    const first = await startDemo(g, () => undefined);
    demos.push(first);
    const second = await startDemo(g, () => undefined);
    demos.push(second);
    const api = apiClient(g.url, second.apiKey);
    const devices = await api<{ devices: Array<{ id: string; name: string }> }>('GET', '/v1/devices');
    expect(devices.body.devices.filter((d) => d.name === DEMO_PHONE_NAME).map((d) => d.id)).toEqual([second.deviceId]);
    expect((await apiClient(g.url, first.apiKey)('GET', '/v1/devices')).status).toBe(401);
  });

  it('points at the environment key instead of making one when HTTP_GATEWAY_API_KEY is set', async () => {
    g = await startTestGateway();
    const demo = await startDemo(g, () => undefined);
    demos.push(demo);
    expect(demo.apiKey).toBe('$HTTP_GATEWAY_API_KEY');
    expect((await g.api<{ apiKeys: unknown[] }>('GET', '/v1/api-keys')).body.apiKeys).toEqual([]);
  });
});
