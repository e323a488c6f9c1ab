export { AssistantService, type AssistantServiceOptions } from './service.js';
export { AssistantBridge, cleanMessage, type BridgeOptions, type RecordedMessage } from './bridge.js';
export { presentMessage, type AssistantCallInfo, type AssistantMessage, type AssistantStatus } from './model.js';
export { failureTone } from './tones.js';
export { ASSISTANT_VOICES, DEFAULT_ASSISTANT_VOICE, URGENCIES, isAssistantVoice } from './realtime/index.js';
