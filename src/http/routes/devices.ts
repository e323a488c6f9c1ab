import { createRoute, z } from '@hono/zod-openapi';
import { GatewayError, invalidInput } from '../../errors.js';
import { QrTooLargeError } from '../../phones/index.js';
import { servedBy } from '../affinity.js';
import type { GatewayApp } from '../app.js';
import { requestClient } from '../client-address.js';
import { errorResponses, jsonBody, jsonContent, PUBLIC } from '../openapi.js';
import { DiagnosticsResponse } from '../schemas/diagnostics.js';
import { Device, DeviceIdParam, DeviceUpdate, Pairing, PairingRequest, PhoneCredentials, PhonePair } from '../schemas/devices.js';
import type { HttpServices } from '../services.js';

const DeviceResponse = z.object({ device: Device }).openapi('DeviceResponse');

/** The phones (`/v1/devices`), then pairing a new one (`/v1/pairing`, `/v1/phone/pair`). */
export function registerDeviceRoutes(app: GatewayApp, services: HttpServices): void {
  registerDeviceReads(app, services);
  registerDeviceChanges(app, services);
  registerPairingRoutes(app, services);
}

function registerDeviceReads(app: GatewayApp, services: HttpServices): void {
  const { devices } = services;
  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/devices',
      operationId: 'listDevices',
      tags: ['Phones'],
      summary: 'Paired phones',
      responses: { 200: jsonContent(z.object({ devices: z.array(Device) }).openapi('DeviceList'), 'The phones'), ...errorResponses(401) },
    }), services),
    async (c) => c.json({ devices: await devices.list() }, 200),
  );

  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/devices/{deviceId}',
      operationId: 'getDevice',
      tags: ['Phones'],
      summary: 'One phone',
      request: { params: DeviceIdParam },
      responses: { 200: jsonContent(DeviceResponse, 'The phone'), ...errorResponses(401, 404) },
    }), services),
    async (c) => c.json({ device: await devices.get(c.req.valid('param').deviceId) }, 200),
  );

  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/devices/{deviceId}/diagnostics',
      operationId: 'getDeviceDiagnostics',
      tags: ['Phones'],
      summary: "The phone's latest self-test report (null until it sent one), for a bug report",
      request: { params: DeviceIdParam },
      responses: { 200: jsonContent(DiagnosticsResponse, 'The latest report, without any credential'), ...errorResponses(401, 404) },
    }), services),
    async (c) => c.json({ diagnostics: await devices.diagnostics(c.req.valid('param').deviceId) }, 200),
  );
}

function registerDeviceChanges(app: GatewayApp, services: HttpServices): void {
  const { devices, hub, calls, live } = services;
  app.openapi(
    servedBy('any', createRoute({
      method: 'patch',
      path: '/v1/devices/{deviceId}',
      operationId: 'renameDevice',
      tags: ['Phones'],
      summary: 'Rename a phone',
      request: { params: DeviceIdParam, body: jsonBody(DeviceUpdate) },
      responses: { 200: jsonContent(DeviceResponse, 'The phone after the change'), ...errorResponses(400, 401, 404, 413) },
    }), services),
    async (c) => {
      const { deviceId } = c.req.valid('param');
      const device = await devices.rename(deviceId, c.req.valid('json').name);
      services.log.info({ deviceId }, 'phone renamed');
      live.publish({ type: 'device', deviceId, device });
      return c.json({ device }, 200);
    },
  );

  app.openapi(
    servedBy('device', createRoute({
      method: 'delete',
      path: '/v1/devices/{deviceId}',
      operationId: 'removeDevice',
      tags: ['Phones'],
      summary: 'Remove a phone: its token is revoked and its socket closed; its calls stay in the log',
      request: { params: DeviceIdParam },
      responses: { 204: { description: 'Removed' }, ...errorResponses(401, 404) },
    }), services),
    async (c) => {
      const { deviceId } = c.req.valid('param');
      await devices.remove(deviceId);
      hub.revoke(deviceId, 'phone removed');
      await calls.endOpenCalls(deviceId, 'the phone was removed');
      return c.body(null, 204);
    },
  );
}

function registerPairingRoutes(app: GatewayApp, services: HttpServices): void {
  const { devices, settings, pairingLimiter, config } = services;
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/pairing',
      operationId: 'createPairingCode',
      tags: ['Phones'],
      summary: 'A one-time pairing code (10 minutes) with its QR code',
      request: { body: { ...jsonBody(PairingRequest), required: false } },
      responses: { 200: jsonContent(Pairing, 'Show qrSvg to the phone'), ...errorResponses(400, 401, 413) },
    }),
    async (c) => {
      const sent = c.req.valid('json')?.publicUrl;
      const publicUrl = sent ?? settings.publicUrl();
      if (!publicUrl) {
        throw new GatewayError('VALIDATION_ERROR', 'No public address is known: send publicUrl, or set publicUrl in the settings or PUBLIC_URL', {
          issues: [{ path: 'body.publicUrl', message: 'required when no public address is configured', code: 'required' }],
        });
      }
      try {
        return c.json(await devices.createPairing(publicUrl.replace(/\/+$/, '')), 200);
      } catch (err) {
        // Only an address saved before public addresses were bounded can get here.
        if (err instanceof QrTooLargeError) throw invalidInput('body.publicUrl', `${sent ? 'is' : 'the saved public address is'} too long for a QR code: send a shorter one`, 'too_big');
        throw err;
      }
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/phone/pair',
      operationId: 'pairPhone',
      tags: ['Phone protocol'],
      summary: 'A phone redeems a pairing code for its device token (the code is the credential)',
      ...PUBLIC,
      request: { body: jsonBody(PhonePair) },
      responses: { 200: jsonContent(PhoneCredentials, 'The phone\'s id and token, shown this once'), ...errorResponses(400, 401, 413, 429) },
    }),
    async (c) => {
      const client = requestClient(c, config.trustProxy);
      const forgive = await pairingLimiter.attempt(client);
      try {
        const credentials = await devices.pair(c.req.valid('json'));
        await forgive();
        return c.json(credentials, 200);
      } catch (err) {
        // Only a wrong code counts against the client; a failure of ours does not.
        if (!(err instanceof GatewayError && err.code === 'UNAUTHORIZED')) await forgive();
        throw err;
      }
    },
  );
}
