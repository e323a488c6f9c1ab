export { LiveHub, NO_RELAY, type LiveListener, type LiveRelay } from './hub.js';
export { LiveSocketServer, CLOSE_TOO_SLOW, CLOSE_UNAUTHORIZED, type LiveSocketOptions } from './socket.js';
export { publishDomainEvents, deliveryPublisher } from './sources.js';
export type { LiveMessage, LiveMessageType } from './messages.js';
