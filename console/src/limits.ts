/** The gateway's own limits (src/limits.ts), so the console checks what the API checks. */
export { LIMITS } from '../../src/limits.js';

/** Voices of the assistant's speech model offered in the console (any name may be typed in the API). */
export const VOICES = ['marin', 'cedar', 'alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse'] as const;
