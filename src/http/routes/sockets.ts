import { createRoute } from '@hono/zod-openapi';
import { invalidInput } from '../../errors.js';
import { servedBy } from '../affinity.js';
import type { GatewayApp } from '../app.js';
import { errorResponses } from '../openapi.js';
import { CallIdParam } from '../schemas/calls.js';
import type { HttpServices } from '../services.js';

const plainGet = (path: string) => () => {
  throw invalidInput('header.upgrade', `GET ${path} is a WebSocket: connect with Upgrade: websocket`, 'websocket_required');
};

/**
 * The media and phone WebSockets are served on the HTTP upgrade (src/media, src/phones); these
 * routes document them in the OpenAPI document and answer a plain GET, which cannot carry a socket.
 */
export function registerSocketRoutes(app: GatewayApp, services: HttpServices): void {
  // A plain GET answers the same on every node; the upgrade itself is passed to the call's node (proxyToPhoneNode).
  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/calls/{callId}/media',
      operationId: 'openCallMedia',
      tags: ['Streams'],
      summary: 'WebSocket carrying the call audio (16 kHz mono s16le, 20 ms frames)',
      description: [
        'Connect with a WebSocket upgrade, authenticated like the REST interface (API key, or the console session cookie from',
        'the gateway\'s own origin); a refused upgrade answers 401, 404 (unknown call) or 409 `DEVICE_OFFLINE` (the call has',
        'ended) with the error body. The gateway sends `{type: "start", callId, direction, remoteNumber, deviceId, format}`,',
        'then binary 640-byte frames of the remote party\'s voice, then `{type: "stop", callId}` and closes with 1000 when the',
        'call ends. Send binary PCM of any length to play it into the call (in order, mixed with other sources) and',
        '`{"type": "clear"}` to drop what has not played yet; any other text (or text that is not well-formed Unicode) is answered',
        '`{type: "error", code: "BAD_MESSAGE"}` and the socket stays open. Up to 16 sockets may listen to one call at once;',
        'the next is refused with 409 `CONFLICT` until one closes.',
      ].join(' '),
      request: { params: CallIdParam },
      responses: { 101: { description: 'Switching protocols: the media socket' }, ...errorResponses(400, 401, 404, 409) },
    }), services),
    plainGet('/v1/calls/{callId}/media'),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/phone',
      operationId: 'openPhoneSocket',
      tags: ['Phone protocol'],
      summary: 'WebSocket of a paired phone (phone protocol version 1)',
      description: [
        'The phone connects with `Authorization: Bearer <deviceToken>` from `POST /v1/phone/pair`; a missing, unknown or',
        'revoked token is refused with 401 and the error body. Messages are described in docs/phone-protocol.md.',
      ].join(' '),
      security: [{ deviceToken: [] }],
      responses: { 101: { description: 'Switching protocols: the phone socket' }, ...errorResponses(400, 401) },
    }),
    plainGet('/v1/phone'),
  );
}
