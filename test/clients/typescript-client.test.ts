import { createVoiceGateway, verifyWebhook, result, VoiceGatewayError, WebhookVerificationError, type Call } from '@voice-gateway/client';
import { describe, expect, it } from 'vitest';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { until, testScope } from '../helpers/phones.js';

const scope = testScope();

describe('the TypeScript client against a real gateway and a simulated phone', () => {
  it('places a call, follows its events, hears its audio, hangs up, verifies the webhook and pages the log', async () => {
    const g = await scope.gateway();
    const phone = await scope.phone(g, { audio: { kind: 'tone', frequency: 440, amplitude: 0.3 } });
    const hooks = await scope.receiver('/hooks');
    const vg = createVoiceGateway({ baseUrl: g.url, apiKey: TEST_API_KEY });

    const { secret } = (await vg.api.POST('/v1/settings/webhook-secret')).data!;
    const placed = await vg.api.POST('/v1/calls', { body: { deviceId: phone.deviceId!, to: '+4934112345678', webhookUrl: hooks.url } });
    expect(placed.response.status).toBe(202);
    const callId = placed.data!.call.id;

    const events = await until(
      async () => (await vg.api.GET('/v1/calls/{callId}/events', { params: { path: { callId } } })).data!.events,
      (list) => list.some((e) => e.event === 'call.active'),
      { what: 'call.active through the client' },
    );
    expect(events.map((e) => e.event)).toContain('call.dialing');

    let audioBytes = 0;
    let stopped = false;
    const media = vg.media(callId, { onAudio: (pcm) => (audioBytes += pcm.length), onStop: () => (stopped = true) });
    const start = await media.started;
    expect(start).toMatchObject({ type: 'start', callId, direction: 'outgoing', format: { encoding: 'pcm_s16le', sampleRate: 16000 } });
    await until(async () => audioBytes, (n) => n >= 640 * 10, { what: 'ten frames of the call audio' });

    const hangup = await vg.api.POST('/v1/calls/{callId}/hangup', { params: { path: { callId } } });
    expect(hangup.response.status).toBe(202);
    expect(await media.closed).toBe(1000);
    expect(stopped).toBe(true);

    const ended = await hooks.waitUntil((h) => h.body.event === 'call.disconnected');
    const body = verifyWebhook<{ event: string; call: Call }>(secret, ended.raw, ended.headers);
    expect(body).toMatchObject({ event: 'call.disconnected', call: { id: callId, state: 'ended' } });
    expect(() => verifyWebhook(secret, ended.raw.replace('ended', 'ENDED'), ended.headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, ended.raw, ended.headers, new Date(Date.now() + 10 * 60_000))).toThrow(WebhookVerificationError);

    // A second call, then the log one call per page: the client follows nextBefore.
    const second = await vg.api.POST('/v1/calls', { body: { deviceId: phone.deviceId!, to: '+4934100000000' } });
    expect(second.response.status).toBe(202);
    const ids: string[] = [];
    for await (const call of vg.calls({ limit: 1 })) ids.push(call.id);
    expect(ids).toEqual([second.data!.call.id, callId]);
    let attempts = 0;
    for await (const d of vg.webhookDeliveries({ callId, limit: 1 })) if (d.ok) attempts += 1;
    expect(attempts).toBeGreaterThanOrEqual(2);
  });

  it('gives the gateway\'s errors as typed values', async () => {
    const g = await scope.gateway();
    const vg = createVoiceGateway({ baseUrl: g.url, apiKey: TEST_API_KEY });
    const missing = result(await vg.api.GET('/v1/calls/{callId}', { params: { path: { callId: 'call_nope' } } }));
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });

    const invalid = result(await vg.api.POST('/v1/calls', { body: { deviceId: 'x', to: 'not a number' } }));
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) {
      expect(invalid.error).toBeInstanceOf(VoiceGatewayError);
      expect(invalid.error.code).toBe('VALIDATION_ERROR');
      expect(invalid.error.issues.map((i) => i.path)).toContain('body.to');
    }

    const wrongKey = createVoiceGateway({ baseUrl: g.url, apiKey: 'not-a-key-0123456789' });
    await expect(async () => {
      for await (const _ of wrongKey.calls()) break;
    }).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
