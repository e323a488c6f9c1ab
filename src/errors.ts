/**
 * The closed list of error codes of the contract, plus the phone's own codes (an `ack` with
 * `ok: false` carries a code the phone chose; those reach the client with status 409).
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  DEVICE_OFFLINE: 409,
  DEVICE_BUSY: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  DEVICE_TIMEOUT: 504,
} as const;

export type KnownErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorIssue {
  path: string;
  message: string;
  code?: string;
}

export class GatewayError extends Error {
  readonly code: string;
  readonly status: number;
  readonly issues: ErrorIssue[] | undefined;
  /** Seconds, for RATE_LIMITED. */
  readonly retryAfter: number | undefined;

  constructor(
    code: KnownErrorCode | (string & {}),
    message: string,
    extra: { issues?: ErrorIssue[]; retryAfter?: number; status?: number } = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = extra.status ?? (ERROR_STATUS as Record<string, number>)[code] ?? 409;
    this.issues = extra.issues;
    this.retryAfter = extra.retryAfter;
  }

  toBody(): { error: { code: string; message: string; issues?: ErrorIssue[] } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.issues ? { issues: this.issues } : {}),
      },
    };
  }
}

export const notFound = (what: string): GatewayError => new GatewayError('NOT_FOUND', `${what} not found`);

/** A VALIDATION_ERROR about one part of the request, with its issue, like those zod reports (`body`, `header.host`, `target`). */
export const invalidInput = (path: string, message: string, code: string): GatewayError =>
  new GatewayError('VALIDATION_ERROR', `${path}: ${message}`, { issues: [{ path, message, code }] });
