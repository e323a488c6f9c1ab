import { z } from '@hono/zod-openapi';
import { HttpUrl, WsUrl } from './common.js';

const clear = z.union([z.literal(''), z.null()]);

export const SecretInfo = z
  .object({
    configured: z.boolean(),
    hint: z.string().nullable().openapi({ description: 'the last 4 characters', example: 'x9Qa' }),
    source: z.enum(['console', 'env', 'generated']).nullable(),
  })
  .openapi('SecretInfo');

export const Settings = z
  .object({
    publicUrl: z.string().nullable().openapi({ description: 'address the phone uses to reach the server' }),
    webhookUrl: z.string().nullable().openapi({ description: 'default webhook, receives every call event' }),
    docsUrl: z.string().nullable(),
    incomingStreamUrl: z.string().nullable(),
    incomingStreamFormat: z.enum(['raw', 'vendor']),
    assistantModel: z.string().nullable(),
    assistantApiKey: SecretInfo,
    webhookSecret: SecretInfo,
  })
  .openapi('Settings');

export const SettingsUpdate = z
  .strictObject({
    publicUrl: z.union([clear, HttpUrl]).optional(),
    webhookUrl: z.union([clear, HttpUrl]).optional(),
    docsUrl: z.union([clear, HttpUrl]).optional(),
    incomingStreamUrl: z.union([clear, WsUrl]).optional(),
    incomingStreamFormat: z.union([clear, z.enum(['raw', 'vendor'])]).optional(),
    assistantModel: z.union([clear, z.string().max(100)]).optional(),
    assistantApiKey: z.union([clear, z.string().min(8).max(500)]).optional(),
    webhookSecret: z
      .union([clear, z.string().regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by at least 24 bytes of base64')])
      .optional(),
  })
  .openapi('SettingsUpdate', { description: 'Only sent fields change; an empty string (or null) clears a value back to its environment default.' });

export const SettingsResponse = z.object({ settings: Settings }).openapi('SettingsResponse');
