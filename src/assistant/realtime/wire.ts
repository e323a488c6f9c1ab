/**
 * Hand-written wire types for the subset of the OpenAI Realtime API (GA interface) we use.
 * Field names follow the wire (snake_case). Only what the assistant reads or sends is typed;
 * everything else the server sends passes through `parseServerEvent` as an unknown event.
 */

export interface PcmAudioFormat {
  type: 'audio/pcm';
  /** The GA API accepts only 24 kHz for PCM. */
  rate: 24000;
}

export interface ServerVadTurnDetection {
  type: 'server_vad';
  threshold?: number;
  prefix_padding_ms?: number;
  silence_duration_ms?: number;
  create_response?: boolean;
  interrupt_response?: boolean;
  idle_timeout_ms?: number | null;
}

export interface InputTranscriptionConfig {
  model: string;
  language?: string;
  prompt?: string;
}

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, JsonSchemaProperty>;
  required?: string[];
  additionalProperties?: boolean;
}

export type JsonSchemaProperty =
  | { type: 'string' | 'number' | 'integer' | 'boolean'; description?: string; enum?: readonly string[] }
  | { type: 'array'; items: { type: 'string' }; description?: string };

export interface FunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchemaObject;
}

export interface RealtimeSessionConfig {
  type: 'realtime';
  model?: string;
  instructions?: string;
  output_modalities?: Array<'audio' | 'text'>;
  audio?: {
    input?: {
      format?: PcmAudioFormat;
      transcription?: InputTranscriptionConfig | null;
      turn_detection?: ServerVadTurnDetection | null;
      noise_reduction?: { type: 'near_field' | 'far_field' } | null;
    };
    output?: {
      format?: PcmAudioFormat;
      voice?: string;
      speed?: number;
    };
  };
  tools?: FunctionTool[];
  tool_choice?: 'auto' | 'none' | 'required';
}

// ---- client events ----

export interface SessionUpdateEvent {
  type: 'session.update';
  event_id?: string;
  session: RealtimeSessionConfig;
}

export interface InputAudioBufferAppendEvent {
  type: 'input_audio_buffer.append';
  event_id?: string;
  /** Base64 of PCM s16le mono at 24 kHz. */
  audio: string;
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  /** The wire wants a string; we send JSON. */
  output: string;
}

export interface ConversationItemCreateEvent {
  type: 'conversation.item.create';
  event_id?: string;
  previous_item_id?: string;
  item: FunctionCallOutputItem;
}

export interface ResponseCreateEvent {
  type: 'response.create';
  event_id?: string;
  response?: { instructions?: string };
}

export interface ConversationItemTruncateEvent {
  type: 'conversation.item.truncate';
  event_id?: string;
  item_id: string;
  content_index: number;
  audio_end_ms: number;
}

export type ClientEvent =
  | SessionUpdateEvent
  | InputAudioBufferAppendEvent
  | ConversationItemCreateEvent
  | ResponseCreateEvent
  | ConversationItemTruncateEvent;

// ---- server events ----

interface ServerEventBase {
  event_id?: string;
}

export interface SessionCreatedEvent extends ServerEventBase {
  type: 'session.created';
  session: RealtimeSessionConfig & { id?: string; object?: string };
}

export interface SessionUpdatedEvent extends ServerEventBase {
  type: 'session.updated';
  session: RealtimeSessionConfig & { id?: string; object?: string };
}

export interface ResponseOutputAudioDeltaEvent extends ServerEventBase {
  type: 'response.output_audio.delta';
  response_id?: string;
  item_id: string;
  output_index?: number;
  content_index: number;
  /** Base64 of PCM s16le mono at 24 kHz. */
  delta: string;
}

export interface ResponseOutputAudioTranscriptDoneEvent extends ServerEventBase {
  type: 'response.output_audio_transcript.done';
  response_id?: string;
  item_id: string;
  output_index?: number;
  content_index?: number;
  transcript: string;
}

export interface InputAudioTranscriptionCompletedEvent extends ServerEventBase {
  type: 'conversation.item.input_audio_transcription.completed';
  item_id: string;
  content_index?: number;
  transcript: string;
}

export interface InputAudioBufferSpeechStartedEvent extends ServerEventBase {
  type: 'input_audio_buffer.speech_started';
  /** Milliseconds of input audio written before speech was detected, padding included. */
  audio_start_ms: number;
  item_id: string;
}

export interface FunctionCallItem {
  type: 'function_call';
  id?: string;
  call_id: string;
  name: string;
  /** JSON text as the model wrote it. */
  arguments: string;
  status?: string;
}

export interface ResponseFunctionCallArgumentsDoneEvent extends ServerEventBase {
  type: 'response.function_call_arguments.done';
  response_id?: string;
  item_id?: string;
  output_index?: number;
  call_id: string;
  name?: string;
  arguments: string;
}

export interface ResponseOutputItemDoneEvent extends ServerEventBase {
  type: 'response.output_item.done';
  response_id?: string;
  output_index?: number;
  item: { type: string } & Partial<Omit<FunctionCallItem, 'type'>>;
}

export interface RealtimeResponse {
  id?: string;
  status?: string;
  status_details?: unknown;
  output?: Array<{ type: string } & Partial<Omit<FunctionCallItem, 'type'>>>;
}

export interface ResponseDoneEvent extends ServerEventBase {
  type: 'response.done';
  response: RealtimeResponse;
}

export interface ServerErrorDetails {
  type?: string;
  code?: string | null;
  message: string;
  param?: string | null;
  event_id?: string | null;
}

export interface ErrorEvent extends ServerEventBase {
  type: 'error';
  error: ServerErrorDetails;
}

export type KnownServerEvent =
  | SessionCreatedEvent
  | SessionUpdatedEvent
  | ResponseOutputAudioDeltaEvent
  | ResponseOutputAudioTranscriptDoneEvent
  | InputAudioTranscriptionCompletedEvent
  | InputAudioBufferSpeechStartedEvent
  | ResponseFunctionCallArgumentsDoneEvent
  | ResponseOutputItemDoneEvent
  | ResponseDoneEvent
  | ErrorEvent;

/** Any other event type the server sends; its fields are left unread. */
export interface UnknownServerEvent extends ServerEventBase {
  type: string;
}

export type ServerEvent = KnownServerEvent | UnknownServerEvent;

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Checks the fields we read for each known type; the rest of the payload passes through. */
const VALIDATORS: Record<KnownServerEvent['type'], (e: Fields) => boolean> = {
  'session.created': (e) => isObject(e.session),
  'session.updated': (e) => isObject(e.session),
  'response.output_audio.delta': (e) => isString(e.item_id) && isNumber(e.content_index) && isString(e.delta),
  'response.output_audio_transcript.done': (e) => isString(e.item_id) && isString(e.transcript),
  'conversation.item.input_audio_transcription.completed': (e) => isString(e.item_id) && isString(e.transcript),
  'input_audio_buffer.speech_started': (e) => isNumber(e.audio_start_ms) && isString(e.item_id),
  'response.function_call_arguments.done': (e) =>
    isString(e.call_id) && isString(e.arguments) && (e.name === undefined || isString(e.name)),
  'response.output_item.done': (e) => isObject(e.item) && isString(e.item.type),
  'response.done': (e) =>
    isObject(e.response) && (e.response.output === undefined || Array.isArray(e.response.output)),
  error: (e) => isObject(e.error) && isString(e.error.message),
};

export const KNOWN_SERVER_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(VALIDATORS));

export function isKnownServerEvent(event: ServerEvent): event is KnownServerEvent {
  return KNOWN_SERVER_EVENT_TYPES.has(event.type);
}

/**
 * Parses one text frame. Returns null for malformed JSON, a payload without a string `type`,
 * or a known type whose fields we read have the wrong shape; unknown types pass through.
 */
export function parseServerEvent(text: string): ServerEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value) || !isString(value.type)) return null;
  const validate = (VALIDATORS as Record<string, ((e: Fields) => boolean) | undefined>)[value.type];
  if (validate && !validate(value)) return null;
  return value as unknown as ServerEvent;
}
