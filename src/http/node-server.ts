import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { GatewayError, invalidInput } from '../errors.js';

type Fetch = Parameters<typeof getRequestListener>[0];

/** Writes an error as a whole HTTP/1.1 response on a raw socket (a refused upgrade, a request Node could not parse) and closes it. */
export function writeRawError(socket: Duplex, error: GatewayError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Node's HTTP server around the Hono app. Everything Node or the adapter would answer on its own
 * (no Host header, a target that makes no URL, bytes that are not HTTP) gets the contract's error
 * body instead of an empty 400. The adapter's own clean-up of unread bodies is off: the app reads
 * them to their end itself (see `drainUnreadBody` in app.ts), which keeps keep-alive connections usable.
 */
export function createNodeServer(fetch: Fetch): Server {
  const listener = getRequestListener(fetch, {
    autoCleanupIncoming: false,
    errorHandler: (err) => {
      if (!(err instanceof RequestError)) return undefined;
      const error = /host header/i.test(err.message)
        ? invalidInput('header.host', 'missing, or not a host name', 'invalid_host')
        : invalidInput('target', 'the request target and the Host header make no URL', 'invalid_target');
      return Response.json(error.toBody(), { status: error.status });
    },
  });
  // Node itself would answer a request without Host with an empty 400; the adapter's check above answers in our shape.
  const server = createServer({ requireHostHeader: false }, (req, res) => void listener(req, res));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    writeRawError(
      socket,
      tooLarge
        ? new GatewayError('HEADERS_TOO_LARGE', 'The request headers are over the server\'s limit (16 KiB)')
        : invalidInput('request', 'not a well-formed HTTP/1.1 request', 'malformed_http'),
    );
  });
  return server;
}
