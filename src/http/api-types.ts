import type { z } from '@hono/zod-openapi';
import type * as accounts from './schemas/accounts.js';
import type * as apiKeys from './schemas/api-keys.js';
import type * as assistant from './schemas/assistant.js';
import type * as calls from './schemas/calls.js';
import type * as devices from './schemas/devices.js';
import type * as diagnostics from './schemas/diagnostics.js';
import type * as settings from './schemas/settings.js';
import type * as streams from './schemas/streams.js';
import type * as webhooks from './schemas/webhooks.js';

/**
 * The REST resources as they travel, inferred from the same zod schemas that validate them and write
 * the OpenAPI document, for clients in this repository (the console). Types only: nothing here runs.
 */
export type Call = z.infer<typeof calls.Call>;
export type CallState = Call['state'];
export type Direction = Call['direction'];
export type StreamConfig = z.infer<typeof calls.StreamConfig>;
export type MediaInfo = z.infer<typeof calls.MediaInfo>;
export type CallEvent = z.infer<typeof calls.CallEvent>;
export type TranscriptLine = z.infer<typeof calls.TranscriptLine>;
export type Command = z.infer<typeof calls.Command>;
export type StreamInfo = z.infer<typeof streams.StreamInfo>;
export type LinkStatus = StreamInfo['status'];
export type AssistantMessage = z.infer<typeof assistant.AssistantMessage>;
export type AssistantCallInfo = z.infer<typeof assistant.AssistantCallInfo>;
export type AssistantConnectionTest = z.infer<typeof assistant.AssistantConnectionTest>;
export type AssistantSettings = z.infer<typeof assistant.AssistantSettings>;
export type Health = z.infer<typeof devices.Health>;
export type Device = z.infer<typeof devices.Device>;
export type Pairing = z.infer<typeof devices.Pairing>;
export type Diagnostics = z.infer<typeof diagnostics.Diagnostics>;
export type WebhookDelivery = z.infer<typeof webhooks.WebhookDelivery>;
export type WebhookEventDelivery = z.infer<typeof webhooks.WebhookEventDelivery>;
export type SecretInfo = z.infer<typeof settings.SecretInfo>;
export type Settings = z.infer<typeof settings.Settings>;
export type ApiKey = z.infer<typeof apiKeys.ApiKey>;
export type User = z.infer<typeof accounts.User>;

/** What the live channel (`/v1/live`) pushes; see src/live/messages.ts. */
export type LiveMessage =
  | { type: 'hello'; serverTime: string }
  | { type: 'call'; call: Call; previousState: CallState | null; event?: CallEvent }
  | { type: 'device'; deviceId: string; device: Device | null }
  | { type: 'delivery'; delivery: WebhookDelivery }
  | { type: 'message'; message: AssistantMessage };
