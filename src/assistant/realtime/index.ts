export {
  RealtimeClient,
  realtimeUrl,
  type RealtimeAudioChunk,
  type RealtimeClientEvents,
  type RealtimeClose,
  type RealtimeConnectOptions,
  type RealtimeFunctionCall,
  type RealtimeResponseDone,
  type RealtimeSpeechStarted,
} from './client.js';
export {
  FATAL_REALTIME_ERROR_CODES,
  RealtimeError,
  isFatalRealtimeErrorCode,
  type LocalRealtimeErrorCode,
} from './errors.js';
export {
  ASSISTANT_VOICES,
  DEFAULT_ASSISTANT_MODEL,
  DEFAULT_ASSISTANT_VOICE,
  DEFAULT_REALTIME_URL,
  DEFAULT_TRANSCRIPTION_MODEL,
  END_CALL_TOOL,
  REALTIME_SAMPLE_RATE,
  RECORD_MESSAGE_TOOL,
  URGENCIES,
  buildInstructions,
  buildSessionUpdate,
  buildTools,
  isAssistantVoice,
  type AssistantVoice,
  type SessionUpdateInput,
  type Urgency,
} from './session.js';
export {
  isKnownServerEvent,
  parseServerEvent,
  type ClientEvent,
  type KnownServerEvent,
  type RealtimeSessionConfig,
  type ServerEvent,
  type SessionUpdateEvent,
} from './wire.js';
