import { z } from '@hono/zod-openapi';
import { STREAM_FORMATS } from '../../codecs/formats.js';
import { text } from '../../text.js';
import { HttpUrl, PublicUrl, WsUrl } from './common.js';

const clear = z.union([z.literal(''), z.null()]);

export const SecretInfo = z
  .object({
    configured: z.boolean(),
    hint: z.string().nullable().openapi({ description: 'the last 4 characters', example: 'x9Qa' }),
    source: z.enum(['console', 'env', 'generated']).nullable(),
  })
  .openapi('SecretInfo');

const ValueSource = z.enum(['console', 'env', 'default']).openapi('SettingSource', {
  description: '`console`: saved through PUT /v1/settings (or the console); `env`: the environment variable; `default`: neither (the gateway\'s default)',
});

export const Settings = z
  .object({
    publicUrl: z.string().nullable().openapi({ description: 'address the phone uses to reach the server' }),
    webhookUrl: z.string().nullable().openapi({ description: 'default webhook, receives every call event' }),
    docsUrl: z.string().nullable(),
    incomingStreamUrl: z.string().nullable(),
    incomingStreamFormat: z.enum(STREAM_FORMATS),
    assistantModel: z.string().nullable(),
    assistantApiKey: SecretInfo,
    webhookSecret: SecretInfo,
    sources: z
      .object({
        publicUrl: ValueSource,
        webhookUrl: ValueSource,
        docsUrl: ValueSource,
        incomingStreamUrl: ValueSource,
        incomingStreamFormat: ValueSource,
        assistantModel: ValueSource,
      })
      .openapi({ description: 'where each value above comes from; the secrets say it in their own `source`' }),
  })
  .openapi('Settings');

/** A field that takes a value, or "" (or null) to clear it; the union's own message says both. */
const clearable = <T extends z.ZodType>(schema: T, expected: string) => z.union([clear, schema], { error: `${expected}, or "" to clear it` }).optional();

const WEBHOOK_SECRET = z.string().regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by at least 24 bytes of base64');

export const SettingsUpdate = z
  .strictObject({
    publicUrl: clearable(PublicUrl, 'must be an http:// or https:// URL of at most 2000 characters once URL-encoded'),
    webhookUrl: clearable(HttpUrl, 'must be an http:// or https:// URL'),
    docsUrl: clearable(HttpUrl, 'must be an http:// or https:// URL'),
    incomingStreamUrl: clearable(WsUrl, 'must be a ws:// or wss:// URL'),
    incomingStreamFormat: clearable(z.enum(STREAM_FORMATS), 'must be "raw" or "vendor"'),
    assistantModel: clearable(text().max(100), 'must be a model name of at most 100 characters, without control characters'),
    assistantApiKey: clearable(text().min(8).max(500), 'must be a key of 8 to 500 characters, without control characters'),
    webhookSecret: clearable(WEBHOOK_SECRET, 'must be whsec_ followed by at least 24 bytes of base64'),
  })
  .openapi('SettingsUpdate', { description: 'Only sent fields change; an empty string (or null) clears a value back to its environment default.' });

export const SettingsResponse = z.object({ settings: Settings }).openapi('SettingsResponse');
