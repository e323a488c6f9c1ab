import type { z } from '@hono/zod-openapi';
import type * as calls from '../calls/model.js';
import type * as webhooks from '../webhooks/index.js';
import type * as callSchemas from './schemas/calls.js';
import type * as webhookSchemas from './schemas/webhooks.js';

/**
 * The domain's resource types held to the schemas they travel as, at compile time (nothing here
 * runs, and nothing imports it: `tsc` checks it). The domain writes its own types, since it never
 * imports from http/, and the schemas write the OpenAPI document and the console's types
 * (api-types.ts); each pair below is one shape: the same fields, and every value of one is a value of
 * the other. A field added to one and not the other stops the build here. (The stored rows,
 * `CallRow` and `WebhookDeliveryRow`, are the storage's own shapes, with nulls and text columns;
 * `presentCall` and `toWebhookDelivery` turn them into these, once.)
 */
export type SameShape<Schema, Domain> = [Schema] extends [Domain]
  ? [Domain] extends [Schema]
    ? [keyof Schema] extends [keyof Domain]
      ? [keyof Domain] extends [keyof Schema]
        ? true
        : false
      : false
    : false
  : false;

/** Compiles only when the check is `true`. */
export type Holds<Check extends true> = Check;

export type HeldShapes = [
  Holds<SameShape<z.infer<typeof callSchemas.Call>, calls.Call>>,
  Holds<SameShape<z.infer<typeof callSchemas.StreamConfig>, calls.StreamConfig>>,
  Holds<SameShape<z.infer<typeof callSchemas.MediaInfo>, calls.MediaInfo>>,
  Holds<SameShape<z.infer<typeof callSchemas.CallEvent>, calls.CallEvent>>,
  Holds<SameShape<z.infer<typeof callSchemas.TranscriptLine>, calls.TranscriptLine>>,
  Holds<SameShape<z.infer<typeof webhookSchemas.WebhookDelivery>, webhooks.WebhookDelivery>>,
  Holds<SameShape<z.infer<typeof webhookSchemas.WebhookEventDelivery>, webhooks.WebhookEventDelivery>>,
];
