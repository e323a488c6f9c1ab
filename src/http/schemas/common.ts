import { z } from '@hono/zod-openapi';
import { LIMITS } from '../../limits.js';
import { CREDENTIALS_REFUSED, FRAGMENT_REFUSED, withoutCredentials, withoutFragment } from '../../outbound/url.js';
import { installPlainMessages } from '../../validation-messages.js';

// Every schema of the API imports this module: from here on, issues read in plain words.
installPlainMessages();

export const HttpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2048, 'must be at most 2048 characters')
  .refine(withoutCredentials, CREDENTIALS_REFUSED);
export const WsUrl = z
  .url({ protocol: /^wss?$/, error: 'must begin with ws:// or wss://' })
  .max(2048, 'must be at most 2048 characters')
  .refine(withoutCredentials, CREDENTIALS_REFUSED)
  .refine(withoutFragment, FRAGMENT_REFUSED);
export const DateTime = z.iso.datetime().openapi({ example: '2026-11-20T12:00:00.000Z' });

export const Limit = z.coerce
  .number()
  .int()
  .min(LIMITS.pageLimitMin)
  .max(LIMITS.pageLimitMax)
  .default(LIMITS.pageLimitDefault)
  .openapi({ type: 'integer', minimum: LIMITS.pageLimitMin, maximum: LIMITS.pageLimitMax, default: LIMITS.pageLimitDefault });
