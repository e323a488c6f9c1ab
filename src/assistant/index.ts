export { AssistantService, type AssistantServiceOptions } from './service.js';
export { AssistantBridge, type BridgeOptions } from './bridge.js';
export { cleanMessage, cleanOutcome, type RecordedMessage, type ReportedOutcome } from './tool-results.js';
export { presentMessage, type AssistantCallInfo, type AssistantMessage, type AssistantStatus } from './model.js';
export { failureTone } from './tones.js';
export { ASSISTANT_VOICES, DEFAULT_ASSISTANT_VOICE, URGENCIES, isAssistantVoice } from './realtime/index.js';
