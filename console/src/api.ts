import type {
  ApiKey,
  AssistantCallInfo,
  AssistantConnectionTest,
  AssistantMessage,
  AssistantSettings,
  Call,
  CallEvent,
  Device,
  Diagnostics,
  MediaInfo,
  Pairing,
  Settings,
  StreamFormat,
  StreamInfo,
  TranscriptLine,
  User,
  WebhookDelivery,
  WebhookEventDelivery,
} from './types';
import type { CallAction } from '../../src/calls/state.js';
import { issueSentence, sentence } from './plain-words';

/** What `POST /v1/agent/test` answers. */
export type ConnectionTest = AssistantConnectionTest;

/** Where the gateway serves the Android app (src/http/routes/app-download.ts). */
export const APP_DOWNLOAD_PATH = '/app/voice-gateway.apk';

/** A QR code of the app's download address at `publicUrl`, drawn by the gateway. */
export const appQrSrc = (publicUrl: string): string => `/app/install-qr.svg?url=${encodeURIComponent(publicUrl)}`;

export interface Issue {
  path: string;
  message: string;
}

/** A refused request, with the API's error body (`{error: {code, message, issues?}}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: Issue[] = [],
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** A route this gateway does not have yet (a later feature), as opposed to a missing resource. */
  get routeMissing(): boolean {
    return this.status === 404 && /^No route /.test(this.message);
  }

  /** The issue at `body.<field>` (or `query.<field>`) as a sentence to show under that field, if any. */
  field(name: string): string | undefined {
    const issue = this.issues.find((i) => i.path === `body.${name}` || i.path === `query.${name}` || i.path.startsWith(`body.${name}.`));
    return issue && sentence(issue.message);
  }
}

/**
 * What a refused request says to a person. A validation error's own message names API paths
 * (`body.to: …`); it is said again from its issues, in plain sentences.
 */
function plainMessage(code: string, message: string, issues: Issue[]): string {
  if (code === 'VALIDATION_ERROR' && issues.length > 0) return issues.map(issueSentence).join(' ');
  return message;
}

/** Called when a request finds the session gone, so the app can show the sign-in page. */
let onSignedOut: (() => void) | null = null;
export const setSignedOutHandler = (handler: (() => void) | null): void => {
  onSignedOut = handler;
};

async function request<T>(method: string, path: string, body?: unknown, options: { quiet401?: boolean } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The gateway could not be reached. Check your connection and try again.');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; issues?: Issue[] } } | undefined)?.error;
    const retry = res.headers.get('retry-after');
    const code = error?.code ?? `HTTP_${res.status}`;
    const issues = error?.issues ?? [];
    const err = new ApiError(res.status, code, plainMessage(code, error?.message ?? `The gateway answered ${res.status}`, issues), issues, retry ? Number(retry) : null);
    if (res.status === 401 && !options.quiet401) onSignedOut?.();
    throw err;
  }
  return parsed as T;
}

const q = (params: Record<string, string | number | undefined | null>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
};

const id = (value: string): string => encodeURIComponent(value);

export interface CallFilters {
  deviceId?: string | undefined;
  state?: string | undefined;
  direction?: string | undefined;
  remoteNumber?: string | undefined;
  after?: string | undefined;
  before?: string | undefined;
  limit?: number | undefined;
}

export interface DeliveryFilters {
  callId?: string | undefined;
  event?: string | undefined;
  ok?: 'true' | 'false' | undefined;
  before?: number | undefined;
  limit?: number | undefined;
}

export interface PlaceCallInput {
  deviceId: string;
  to: string;
  webhookUrl?: string;
  metadata?: Record<string, unknown>;
  stream?: { url: string; format?: StreamFormat };
}

export type SettingsPatch = Partial<Record<'publicUrl' | 'webhookUrl' | 'docsUrl' | 'incomingStreamUrl' | 'incomingStreamFormat' | 'assistantModel' | 'assistantApiKey' | 'webhookSecret', string>>;

export const api = {
  authStatus: () => request<{ setupRequired: boolean }>('GET', '/v1/auth/status'),
  me: () => request<{ user: User | null; credential: string }>('GET', '/v1/auth/me', undefined, { quiet401: true }),
  setup: (email: string, password: string, setupToken: string) =>
    request<{ user: User }>('POST', '/v1/auth/setup', { email, password, setupToken: setupToken.trim() }, { quiet401: true }),
  login: (email: string, password: string) => request<{ user: User }>('POST', '/v1/auth/login', { email, password }, { quiet401: true }),
  logout: () => request<void>('POST', '/v1/auth/logout', undefined, { quiet401: true }),
  resetPassword: (token: string, password: string) => request<{ user: User }>('POST', '/v1/auth/password-reset', { token, password }, { quiet401: true }),

  users: () => request<{ users: User[] }>('GET', '/v1/users'),
  addUser: (email: string, password: string) => request<{ user: User }>('POST', '/v1/users', { email, password }),
  removeUser: (userId: string) => request<void>('DELETE', `/v1/users/${id(userId)}`),

  calls: (filters: CallFilters) => request<{ calls: Call[]; nextBefore: string | null }>('GET', `/v1/calls${q({ ...filters })}`),
  call: (callId: string) => request<{ call: Call; media: MediaInfo }>('GET', `/v1/calls/${id(callId)}`),
  events: (callId: string) => request<{ events: CallEvent[] }>('GET', `/v1/calls/${id(callId)}/events`),
  transcript: (callId: string) => request<{ transcript: TranscriptLine[] }>('GET', `/v1/calls/${id(callId)}/transcript`),
  placeCall: (input: PlaceCallInput) => request<{ call: Call }>('POST', '/v1/calls', input),
  act: (callId: string, action: CallAction) => request<{ call: Call }>('POST', `/v1/calls/${id(callId)}/${action}`),
  dtmf: (callId: string, digits: string) => request<{ call: Call }>('POST', `/v1/calls/${id(callId)}/dtmf`, { digits }),
  stream: (callId: string) => request<StreamInfo>('GET', `/v1/calls/${id(callId)}/stream`),
  attachStream: (callId: string, stream: { url: string; format: StreamFormat }) => request<StreamInfo & { call: Call }>('POST', `/v1/calls/${id(callId)}/stream`, stream),
  detachStream: (callId: string) => request<void>('DELETE', `/v1/calls/${id(callId)}/stream`),
  agent: (callId: string) => request<AssistantCallInfo>('GET', `/v1/calls/${id(callId)}/agent`),
  handToAgent: (callId: string) => request<AssistantCallInfo>('POST', `/v1/calls/${id(callId)}/agent`),
  takeBack: (callId: string) => request<AssistantCallInfo>('DELETE', `/v1/calls/${id(callId)}/agent`),

  devices: () => request<{ devices: Device[] }>('GET', '/v1/devices'),
  diagnostics: (deviceId: string) => request<{ diagnostics: Diagnostics | null }>('GET', `/v1/devices/${id(deviceId)}/diagnostics`),
  removeDevice: (deviceId: string) => request<void>('DELETE', `/v1/devices/${id(deviceId)}`),
  renameDevice: (deviceId: string, name: string) => request<{ device: Device }>('PATCH', `/v1/devices/${id(deviceId)}`, { name }),
  pairing: (publicUrl?: string) => request<Pairing>('POST', '/v1/pairing', publicUrl ? { publicUrl } : {}),
  /** Whether the gateway has the Android app to serve: HEAD of the download (no credential needed). */
  appBuilt: () => fetch(APP_DOWNLOAD_PATH, { method: 'HEAD' }).then((res) => res.ok),

  agentSettings: () => request<{ settings: AssistantSettings }>('GET', '/v1/agent'),
  testAgentConnection: () => request<ConnectionTest>('POST', '/v1/agent/test'),
  saveAgentSettings: (patch: Partial<AssistantSettings>) => request<{ settings: AssistantSettings }>('PUT', '/v1/agent', patch),
  messages: (limit = 50) => request<{ messages: AssistantMessage[] }>('GET', `/v1/agent/messages${q({ limit })}`),
  markMessage: (callId: string, read: boolean) => request<{ message: AssistantMessage }>('PATCH', `/v1/agent/messages/${id(callId)}`, { read }),

  settings: () => request<{ settings: Settings }>('GET', '/v1/settings'),
  saveSettings: (patch: SettingsPatch) => request<{ settings: Settings }>('PUT', '/v1/settings', patch),
  rotateWebhookSecret: () => request<{ secret: string }>('POST', '/v1/settings/webhook-secret'),

  apiKeys: () => request<{ apiKeys: ApiKey[] }>('GET', '/v1/api-keys'),
  createApiKey: (name: string) => request<{ apiKey: ApiKey }>('POST', '/v1/api-keys', { name }),
  revokeApiKey: (keyId: string) => request<void>('DELETE', `/v1/api-keys/${id(keyId)}`),

  deliveries: (filters: DeliveryFilters) => request<{ deliveries: WebhookDelivery[]; events: WebhookEventDelivery[]; nextBefore: number | null }>('GET', `/v1/webhook-deliveries${q({ ...filters })}`),
  retryDelivery: (deliveryId: number) => request<{ retryOf: number; dueAt: string }>('POST', `/v1/webhook-deliveries/${deliveryId}/retry`),
};

/** The message to show for a failure of any kind. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
