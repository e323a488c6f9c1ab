import { createRoute } from '@hono/zod-openapi';
import { invalidInput } from '../../errors.js';
import type { GatewayApp } from '../app.js';
import { errorResponses } from '../openapi.js';

/**
 * `GET /v1/live` is a WebSocket (served by LiveSocketServer on the upgrade); this route documents it
 * and answers a plain GET, which cannot carry the channel.
 */
export function registerLiveRoutes(app: GatewayApp): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/live',
      operationId: 'openLiveSocket',
      tags: ['Console live channel'],
      summary: 'WebSocket of live updates for the console',
      description: [
        'Connect with a WebSocket upgrade, authenticated like the REST interface (API key, or the console session cookie from the',
        'gateway\'s own origin); a refused upgrade answers 401 with the error body. The gateway sends JSON text messages:',
        '`{type: "hello", serverTime}` first, then `{type: "call", call, previousState, event?}` on every change of a call,',
        '`{type: "device", deviceId, device}` when a phone connects, disconnects or reports health (`device` null once removed),',
        '`{type: "delivery", delivery}` for every webhook attempt and `{type: "message", message}` when the assistant takes a message.',
        'Nothing is replayed: after a reconnect, read the current state over REST. A plain GET answers 400.',
      ].join(' '),
      responses: {
        101: { description: 'Switching protocols: the live channel' },
        ...errorResponses(400, 401),
      },
    }),
    () => {
      throw invalidInput('header.upgrade', 'GET /v1/live is a WebSocket: connect with Upgrade: websocket', 'websocket_required');
    },
  );
}
