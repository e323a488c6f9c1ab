import type { RealtimeError } from './errors.js';

/** What a RealtimeClient tells its owner, each event's payload decoded from the wire (wire.ts). */

export interface RealtimeAudioChunk {
  itemId: string;
  contentIndex: number;
  /** PCM s16le mono, 24 kHz. */
  pcm: Buffer;
}

export interface RealtimeSpeechStarted {
  audioStartMs: number;
  itemId: string;
}

export interface RealtimeFunctionCall {
  callId: string;
  name: string;
  /** The parsed JSON arguments, or the raw text when it is not valid JSON. */
  arguments: unknown;
}

export interface RealtimeResponseDone {
  responseId: string | undefined;
  status: string | undefined;
}

export interface RealtimeClose {
  code: number;
  reason: string;
}

export interface RealtimeClientEvents {
  audio: [RealtimeAudioChunk];
  speechStarted: [RealtimeSpeechStarted];
  callerTranscript: [string];
  agentTranscript: [string];
  functionCall: [RealtimeFunctionCall];
  responseDone: [RealtimeResponseDone];
  sessionUpdated: [];
  error: [RealtimeError];
  close: [RealtimeClose];
}
