import { z } from '@hono/zod-openapi';
import { HealthReport } from '../../phones/protocol.js';
import { text } from '../../text.js';
import { DateTime, PublicUrl } from './common.js';

export const Health = HealthReport.openapi('DeviceHealth');

export const Device = z
  .object({
    id: z.string().openapi({ example: 'phone-3fa2b1c4d5e6' }),
    name: z.string(),
    connected: z.boolean(),
    registeredAt: DateTime,
    lastSeenAt: DateTime.nullable(),
    latencyMs: z.number().int().nullable().openapi({ description: 'round trip to the phone' }),
    health: Health.nullable().openapi({ description: 'latest report from the phone' }),
  })
  .openapi('Device');

export const Pairing = z
  .object({
    code: z.string().openapi({ example: '7KQ2M9XHTB' }),
    expiresAt: DateTime,
    publicUrl: z.string(),
    pairUri: z.string().openapi({ example: 'voicegateway://pair?url=https%3A%2F%2Fgw.example.com&code=7KQ2M9XHTB' }),
    qrSvg: z.string().openapi({ description: 'SVG markup of a QR code of pairUri' }),
  })
  .openapi('Pairing');

export const PairingRequest = z.object({ publicUrl: PublicUrl.optional() }).openapi('PairingRequest');

export const PhonePair = z
  .object({
    code: text({ trim: true }).min(1).max(64),
    name: text({ trim: true, name: true }).min(1).max(120),
    model: text().max(100).optional(),
    android: text().max(50).optional(),
    appVersion: text().max(50).optional(),
  })
  .openapi('PhonePair');

export const PhoneCredentials = z.object({ deviceId: z.string(), deviceToken: z.string() }).openapi('PhoneCredentials');

export const DeviceUpdate = z
  .strictObject({ name: text({ trim: true, name: true }).min(1).max(120).openapi({ description: 'how the console and the API name the phone', example: 'Front desk' }) })
  .openapi('DeviceUpdate');

export const DeviceIdParam = z.object({ deviceId: text().min(1).openapi({ param: { name: 'deviceId', in: 'path' } }) });
