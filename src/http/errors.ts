import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { GatewayError, type ErrorIssue } from '../errors.js';
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

/** The one error handler: every failure leaves in the contract's error shape. */
export function handleError(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof GatewayError) return errorResponse(c, err);
    if (err instanceof HTTPException) {
      if (err.status === 400) return errorResponse(c, new GatewayError('VALIDATION_ERROR', 'The request body is not valid JSON'));
      if (err.status === 415) return errorResponse(c, new GatewayError('VALIDATION_ERROR', 'The request body must be JSON (Content-Type: application/json)'));
      if (err.status === 413) return errorResponse(c, new GatewayError('PAYLOAD_TOO_LARGE', 'The request body is over 1 MiB'));
      if (err.status === 401) return errorResponse(c, new GatewayError('UNAUTHORIZED', err.message || 'Unauthorized'));
      return errorResponse(c, new GatewayError('INTERNAL_ERROR', err.message || 'Request failed', { status: err.status }));
    }
    log.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error');
    return errorResponse(c, new GatewayError('INTERNAL_ERROR', 'Internal error'));
  };
}
