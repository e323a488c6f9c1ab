import { z } from '@hono/zod-openapi';
import { LIMITS } from '../../limits.js';
import { CREDENTIALS_REFUSED, FRAGMENT_REFUSED, withoutCredentials, withoutFragment } from '../../outbound/url.js';
import { isWellFormed, NO_CONTROLS, NO_CONTROLS_MESSAGE, wellFormed } from '../../text.js';
import { installPlainMessages } from '../../validation-messages.js';

// Every schema of the API imports this module: from here on, issues read in plain words.
installPlainMessages();

// The URL parser drops tabs and line breaks and encodes other control characters, but the text as
// sent is what is stored and shown: they are refused like in any other text. So is text that is not
// well-formed Unicode, which the parser would store as U+FFFD.
export const HttpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .check(wellFormed())
  .max(2048, 'must be at most 2048 characters')
  .regex(NO_CONTROLS, NO_CONTROLS_MESSAGE)
  .refine(withoutCredentials, CREDENTIALS_REFUSED);
export const WsUrl = z
  .url({ protocol: /^wss?$/, error: 'must begin with ws:// or wss://' })
  .check(wellFormed())
  .max(2048, 'must be at most 2048 characters')
  .regex(NO_CONTROLS, NO_CONTROLS_MESSAGE)
  .refine(withoutCredentials, CREDENTIALS_REFUSED)
  .refine(withoutFragment, FRAGMENT_REFUSED);

/** The gateway's address as phones reach it: it goes into QR codes, so its URL-encoded length is bounded. */
export const PublicUrl = HttpUrl.refine(
  // encodeURIComponent throws on a lone surrogate: HttpUrl has refused one, and this never throws either way.
  (url) => isWellFormed(url) && encodeURIComponent(url).length <= LIMITS.publicUrlEncodedMaxLength,
  `must be at most ${LIMITS.publicUrlEncodedMaxLength} characters once URL-encoded (it goes into a QR code)`,
);

/** A row id or paging cursor: a positive integer that fits the 32-bit column. */
export const RowId = z.coerce.number().int().min(1).max(LIMITS.rowIdMax);

export const DateTime = z.iso.datetime().openapi({ example: '2026-11-20T12:00:00.000Z' });

export const Limit = z.coerce
  .number()
  .int()
  .min(LIMITS.pageLimitMin)
  .max(LIMITS.pageLimitMax)
  .default(LIMITS.pageLimitDefault)
  .openapi({ type: 'integer', minimum: LIMITS.pageLimitMin, maximum: LIMITS.pageLimitMax, default: LIMITS.pageLimitDefault });
