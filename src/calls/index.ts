export { CallService, type CallServiceOptions } from './calls.js';
export { runHere, type Exclusive } from './absent-phones.js';
export type { PlaceCallInput } from './commands.js';
export type { CallChange, ResumedCall } from './notices.js';
export { presentCall, mediaPath, type Call, type CallEvent, type MediaInfo, type StreamConfig, type TranscriptLine, type TranscriptRole } from './model.js';
export { CALL_STATES, CALL_ACTIONS, DIRECTIONS, EVENT_NAMES, isFinal, actionRefusal, applyEvent, type CallState, type CallAction, type EventName, type Direction } from './state.js';
export { CreationClock, normalizeTimestamp } from './created-at.js';
export { EndedCallRetention } from './retention.js';
export { CallStateCounts } from './state-counts.js';
