import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { GatewayError, invalidInput, type ErrorIssue } from '../errors.js';
import type { Logger } from '../log.js';

const TARGET_NAMES: Record<string, string> = { json: 'body', query: 'query', param: 'path', header: 'header', cookie: 'cookie' };

export function validationError(error: ZodError, target: string): GatewayError {
  const where = TARGET_NAMES[target] ?? target;
  const issues: ErrorIssue[] = error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const first = issues[0];
  const message = first ? `${first.path}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}` : 'Invalid request';
  return new GatewayError('VALIDATION_ERROR', message, { issues });
}

export function errorResponse(c: Context, error: GatewayError): Response {
  if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter));
  // The rest of an oversized body is never read, and the server drops the socket soon after; say so,
  // so that a keep-alive client does not send its next request on a connection about to close.
  if (error.status === 413) c.header('Connection', 'close');
  return c.json(error.toBody(), error.status as 400);
}

/** Whether the client closed the connection before its request was read (an aborted upload). */
function clientWentAway(c: Context): boolean {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  return incoming !== undefined && (incoming.errored !== null || (incoming.destroyed && !incoming.complete));
}

/** The one error handler: every failure leaves in the contract's error shape. */
export function handleError(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (clientWentAway(c)) {
      // Nobody reads this answer; a client hanging up mid-upload is not the gateway's fault.
      log.debug({ method: c.req.method, path: c.req.path }, 'client closed the connection before sending the whole request');
      return errorResponse(c, invalidInput('body', 'the connection closed before the body was complete', 'incomplete_body'));
    }
    if (err instanceof GatewayError) {
      if (err.code === 'SERVICE_UNAVAILABLE') log.warn({ method: c.req.method, path: c.req.path }, 'the database did not answer in time; answered 503');
      return errorResponse(c, err);
    }
    if (err instanceof HTTPException) {
      if (err.status === 400) return errorResponse(c, invalidInput('body', 'not valid JSON', 'invalid_json'));
      if (err.status === 415) return errorResponse(c, invalidInput('header.content-type', 'must be JSON (application/json)', 'invalid_content_type'));
      if (err.status === 413) return errorResponse(c, new GatewayError('PAYLOAD_TOO_LARGE', 'The request body is over 1 MiB'));
      if (err.status === 401) return errorResponse(c, new GatewayError('UNAUTHORIZED', err.message || 'Unauthorized'));
      return errorResponse(c, new GatewayError('INTERNAL_ERROR', err.message || 'Request failed', { status: err.status }));
    }
    log.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error');
    return errorResponse(c, new GatewayError('INTERNAL_ERROR', 'Internal error'));
  };
}
