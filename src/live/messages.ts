import type { LiveMessage } from '../http/api-types.js';

/**
 * What the live channel pushes to the console (docs/console.md). Each message stands on its own:
 * it carries the whole resource as the REST interface shows it, so a client never has to merge.
 * The type is written once, beside the REST resources it carries, so the console shares it.
 */
export type { LiveMessage };
export type LiveMessageType = LiveMessage['type'];
