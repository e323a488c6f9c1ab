import { z } from '@hono/zod-openapi';
import { LIMITS } from '../../limits.js';
import { text } from '../../text.js';
import { DateTime } from './common.js';

export const ApiKey = z
  .object({
    id: z.uuid(),
    name: z.string().max(LIMITS.apiKeyNameMaxLength),
    prefix: z.string().openapi({ example: 'gw_Ab12Cd34' }),
    createdAt: DateTime,
    lastUsedAt: DateTime.nullable(),
    key: z.string().optional().openapi({ description: 'the full key, present only in the creation response' }),
  })
  .openapi('ApiKey');

export const ApiKeyCreate = z
  .object({ name: text({ trim: true, name: true }).min(1).max(LIMITS.apiKeyNameMaxLength) })
  .openapi('ApiKeyCreate');
