import { z } from '@hono/zod-openapi';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'VALIDATION_ERROR' }),
      message: z.string().openapi({ example: 'body.to: must be at most 64 characters' }),
      issues: z
        .array(z.object({ path: z.string().openapi({ example: 'body.to' }), message: z.string(), code: z.string().optional() }))
        .optional(),
    }),
  })
  .openapi('Error');

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR: the request did not validate or the body is not JSON',
  401: 'UNAUTHORIZED: missing or invalid API key or session',
  403: 'FORBIDDEN: the console user may not do this (only the owner manages users, API keys and settings)',
  404: 'NOT_FOUND: the named resource or route does not exist',
  409: 'A conflict: DEVICE_OFFLINE, DEVICE_BUSY, INVALID_STATE or a code the phone gave',
  413: 'PAYLOAD_TOO_LARGE: the body is over 1 MiB',
  429: 'RATE_LIMITED: too many attempts; see Retry-After',
  503: 'SERVICE_UNAVAILABLE: the database did not answer in time (DATABASE_TIMEOUT); see Retry-After',
  504: 'DEVICE_TIMEOUT: the phone did not acknowledge the command within 5 s',
};

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 503 | 504;

/** The error responses of a route, for the OpenAPI document. 413 is added wherever there is a body. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]): Record<S, { description: string; content: { 'application/json': { schema: typeof ErrorBody } } }> {
  const out = {} as Record<S, { description: string; content: { 'application/json': { schema: typeof ErrorBody } } }>;
  for (const status of statuses) {
    out[status] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: ErrorBody } } };
  }
  return out;
}

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});

/** Routes that are open to everybody (the phone's pairing uses its one-time code instead of a key). */
export const PUBLIC = { security: [] as Array<Record<string, string[]>> };

/** The groups of operations, in the order a reader meets them; every route's `tags` names one of these. */
export const OPENAPI_TAGS = [
  { name: 'Calls', description: 'Place, list and control calls' },
  { name: 'Streams', description: 'A call\'s audio over a WebSocket, to your own agent' },
  { name: 'Assistant', description: 'The built-in assistant: on a call, its settings and the messages it took' },
  { name: 'Phones', description: 'Paired phones and pairing' },
  { name: 'Webhooks', description: 'The log of webhook deliveries' },
  { name: 'Settings', description: 'The gateway\'s settings' },
  { name: 'API keys', description: 'Keys for programs' },
  { name: 'Console sign-in', description: 'Sign-in for the web console' },
  { name: 'Console users', description: 'The console\'s accounts' },
  { name: 'Console live channel', description: 'Live updates for the console' },
  { name: 'Phone protocol', description: 'What the Android app speaks' },
  { name: 'App', description: 'The Android app\'s download' },
  { name: 'Health', description: 'Liveness, readiness and metrics' },
];
