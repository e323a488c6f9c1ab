import createClient, { type Client } from 'openapi-fetch';
import { unwrap } from './errors.js';
import { openMediaSocket, type MediaHandlers, type MediaSocket } from './media.js';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export { VoiceGatewayError, result, toError, unwrap, type ApiErrorBody, type FetchResult, type Result } from './errors.js';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.js';
export { openMediaSocket, type MediaHandlers, type MediaSocket, type MediaStart, type MediaStop } from './media.js';

type Schemas = components['schemas'];
export type Call = Schemas['Call'];
export type CallEvent = Schemas['CallEvent'];
export type PlaceCall = Schemas['PlaceCall'];
export type Device = Schemas['Device'];
export type AssistantCallInfo = Schemas['AssistantCallInfo'];
export type TaskOutcome = Schemas['TaskOutcome'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
type CallListQuery = NonNullable<operations['listCalls']['parameters']['query']>;
type DeliveryListQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;

export interface VoiceGatewayOptions {
  /** The gateway's address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key (Console, Settings, API keys). */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

export interface VoiceGateway {
  /** Every operation, typed from the OpenAPI document: `api.POST('/v1/calls', { body })`. */
  readonly api: Client<paths>;
  /** Every call of the log matching `query`, newest first, fetched a page at a time. */
  calls(query?: Omit<CallListQuery, 'before'>): AsyncGenerator<Call>;
  /** Every webhook attempt matching `query`, newest first, a page at a time. */
  webhookDeliveries(query?: Omit<DeliveryListQuery, 'before'>): AsyncGenerator<WebhookDelivery>;
  /** The call's audio: `start`, then 16 kHz s16le frames, then `stop`. */
  media(callId: string, handlers?: MediaHandlers): MediaSocket;
}

export function createVoiceGateway(options: VoiceGatewayOptions): VoiceGateway {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const api = createClient<paths>({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  api.use({
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${options.apiKey}`);
      return request;
    },
  });
  return {
    api,
    calls: (query = {}) =>
      paginate(async (before) => {
        const page = unwrap(await api.GET('/v1/calls', { params: { query: { ...query, ...(before === undefined ? {} : { before: String(before) }) } } }));
        return { items: page.calls, next: page.nextBefore };
      }),
    webhookDeliveries: (query = {}) =>
      paginate(async (before) => {
        const page = unwrap(await api.GET('/v1/webhook-deliveries', { params: { query: { ...query, ...(before === undefined ? {} : { before: Number(before) }) } } }));
        return { items: page.deliveries, next: page.nextBefore };
      }),
    media: (callId, handlers) => openMediaSocket(baseUrl, options.apiKey, callId, handlers),
  };
}

/** Follows `nextBefore` cursors until a page says there is no next one. */
export async function* paginate<T, C extends string | number>(page: (before: C | undefined) => Promise<{ items: T[]; next: C | null }>): AsyncGenerator<T> {
  let before: C | undefined;
  for (;;) {
    const { items, next } = await page(before);
    yield* items;
    if (next === null || items.length === 0) return;
    before = next;
  }
}
