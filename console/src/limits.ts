/** The gateway's own limits (src/limits.ts), so the console checks what the API checks. */
export { LIMITS } from '../../src/limits.js';

/** The voices the API accepts for the assistant (src/assistant/realtime/session.ts). */
export { ASSISTANT_VOICES as VOICES } from '../../src/assistant/realtime/session.js';
