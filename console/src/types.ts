/** The API's resources as the console reads them (spec/voice-gateway-api.md, contract.md). */

export type CallState = 'queued' | 'dialing' | 'ringing' | 'active' | 'held' | 'ended' | 'rejected' | 'failed';
export type Direction = 'outgoing' | 'incoming';
export type LinkStatus = 'off' | 'waiting' | 'connecting' | 'live' | 'ended' | 'error';

export const CALL_STATES: CallState[] = ['queued', 'dialing', 'ringing', 'active', 'held', 'ended', 'rejected', 'failed'];
export const FINAL_STATES: ReadonlySet<CallState> = new Set(['ended', 'rejected', 'failed']);

export interface StreamConfig {
  url: string;
  format?: 'raw' | 'vendor';
  parameters?: Record<string, string>;
}

export interface Call {
  id: string;
  deviceId: string;
  remoteNumber: string;
  direction: Direction;
  state: CallState;
  nativeCallId?: string;
  webhookUrl?: string;
  metadata?: Record<string, unknown>;
  stream?: StreamConfig;
  createdAt: string;
  updatedAt: string;
  answeredAt?: string;
  endedAt?: string;
}

export interface MediaInfo {
  path: string;
  format: { encoding: 'pcm_s16le'; sampleRate: number; channels: number; frameMs: number };
  streaming: boolean;
}

export interface CallEvent {
  event: string;
  eventId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  receivedAt: string;
}

export interface TranscriptLine {
  role: 'caller' | 'agent';
  text: string;
  at: string;
}

export interface StreamInfo {
  stream: StreamConfig | null;
  status: LinkStatus;
  error?: string;
}

export interface AssistantMessage {
  callId: string;
  remoteNumber: string;
  callerName: string;
  reason: string;
  callbackNumber: string;
  urgency: 'low' | 'normal' | 'high';
  takenAt: string;
}

export interface AssistantCallInfo {
  requested: boolean;
  status: LinkStatus;
  error?: string;
  transcript: TranscriptLine[];
  message?: AssistantMessage;
}

export interface AssistantSettings {
  autoAnswer: boolean;
  ownerName: string;
  about: string;
  voice: string;
}

export interface Health {
  battery?: number;
  charging?: boolean;
  network?: 'wifi' | 'cellular' | 'ethernet' | 'other' | 'none';
  signal?: number;
  carrier?: string;
  audio?: 'running' | 'stopped' | 'pairing_required';
  appVersion?: string;
  android?: string;
  model?: string;
  reportedAt?: string;
}

export interface Device {
  id: string;
  name: string;
  connected: boolean;
  registeredAt: string;
  lastSeenAt: string | null;
  latencyMs: number | null;
  health: Health | null;
}

export interface Pairing {
  code: string;
  expiresAt: string;
  publicUrl: string;
  pairUri: string;
  qrSvg: string;
}

export interface WebhookDelivery {
  id: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  ok: boolean;
  error?: string;
  at: string;
}

export interface SecretInfo {
  configured: boolean;
  hint: string | null;
  source: 'console' | 'env' | 'generated' | null;
}

export interface Settings {
  publicUrl: string | null;
  webhookUrl: string | null;
  docsUrl: string | null;
  incomingStreamUrl: string | null;
  incomingStreamFormat: 'raw' | 'vendor';
  assistantModel: string | null;
  assistantApiKey: SecretInfo;
  webhookSecret: SecretInfo;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  key?: string;
}

export interface User {
  id: string;
  email: string;
  role: 'owner' | 'member';
  createdAt: string;
  lastLoginAt: string | null;
}

export type LiveMessage =
  | { type: 'hello'; serverTime: string }
  | { type: 'call'; call: Call; previousState: CallState | null; event?: CallEvent }
  | { type: 'device'; deviceId: string; device: Device | null }
  | { type: 'delivery'; delivery: WebhookDelivery }
  | { type: 'message'; message: AssistantMessage };
