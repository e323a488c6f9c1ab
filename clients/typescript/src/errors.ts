import type { components } from './schema.js';

/** The gateway's error body (`{"error": {code, message, issues?}}`), as the document describes it. */
export type ApiErrorBody = components['schemas']['Error'];

/** A failed request as a value: the gateway's code, message and issues, and the HTTP status. */
export class VoiceGatewayError extends Error {
  override readonly name = 'VoiceGatewayError';
  constructor(
    /** `VALIDATION_ERROR`, `NOT_FOUND`, `DEVICE_OFFLINE`, …; `NETWORK_ERROR` when no answer came. */
    readonly code: string,
    message: string,
    /** 0 when no answer came. */
    readonly status: number,
    readonly issues: NonNullable<ApiErrorBody['error']['issues']> = [],
  ) {
    super(message);
  }
}

/** What openapi-fetch returns for one request. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: VoiceGatewayError };

const isErrorBody = (v: unknown): v is ApiErrorBody =>
  typeof v === 'object' && v !== null && typeof (v as { error?: { code?: unknown } }).error?.code === 'string';

/** The gateway's error as a typed value, whatever the body was. */
export function toError(error: unknown, response: Response): VoiceGatewayError {
  if (isErrorBody(error)) return new VoiceGatewayError(error.error.code, error.error.message, response.status, error.error.issues ?? []);
  return new VoiceGatewayError(`HTTP_${response.status}`, `The gateway answered ${response.status}`, response.status);
}

/** `{ok: true, value}` or `{ok: false, error}`: handle both branches without try/catch. */
export function result<T>(res: FetchResult<T>): Result<T> {
  if (res.response.ok && res.error === undefined) return { ok: true, value: res.data as T };
  return { ok: false, error: toError(res.error, res.response) };
}

/** The data, or the gateway's error thrown as a VoiceGatewayError. */
export function unwrap<T>(res: FetchResult<T>): T {
  const r = result(res);
  if (!r.ok) throw r.error;
  return r.value;
}
