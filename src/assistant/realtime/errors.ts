import type { DialFailure } from '../../outbound/index.js';

/**
 * Codes after which retrying the same session or connection cannot help: bad or unauthorised
 * credentials, no money, wrong model or URL, the session's hard time limit, our own abort, or a
 * model that stopped reading or answering (the call's audio cannot wait for it).
 */
export const FATAL_REALTIME_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_api_key',
  'invalid_organization',
  'account_deactivated',
  'permission_denied',
  'unsupported_country_region_territory',
  'insufficient_quota',
  'billing_hard_limit_reached',
  'model_not_found',
  'session_expired',
  'invalid_url',
  'outbound_refused',
  'aborted',
  'too_slow',
  'unresponsive',
]);

/** Codes this client produces itself; server codes pass through as the server sent them. */
export type LocalRealtimeErrorCode =
  | 'connect_timeout'
  | 'network_error'
  | 'upgrade_refused'
  | 'rate_limit_exceeded'
  | 'server_error'
  | 'invalid_url'
  | 'outbound_refused'
  | 'aborted'
  | 'too_slow'
  | 'unresponsive'
  | 'unknown_error';

export const isFatalRealtimeErrorCode = (code: string): boolean => FATAL_REALTIME_ERROR_CODES.has(code);

export class RealtimeError extends Error {
  readonly code: string;
  readonly fatal: boolean;
  /** HTTP status when the upgrade was refused. */
  readonly status: number | undefined;

  constructor(code: LocalRealtimeErrorCode | (string & {}), message: string, extra: { status?: number } = {}) {
    super(message);
    this.name = 'RealtimeError';
    this.code = code;
    this.fatal = isFatalRealtimeErrorCode(code);
    this.status = extra.status;
  }
}

/** Maps a refused upgrade to a code when the body carries none. */
export function codeForStatus(status: number): string {
  if (status === 401) return 'invalid_api_key';
  if (status === 403) return 'permission_denied';
  if (status === 404) return 'model_not_found';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'upgrade_refused';
}

/**
 * Removes the key, and anything shaped like an OpenAI key, from text that came from the server
 * or the network stack (OpenAI echoes a masked key in its 401 message).
 */
export function redactSecrets(text: string, apiKey: string): string {
  let out = text;
  if (apiKey) out = out.split(apiKey).join('[redacted]');
  return out.replace(/\bsk-[A-Za-z0-9_*.-]{4,}/g, 'sk-[redacted]');
}

/** The `error` object of a refused upgrade's JSON body, when it has one (OpenAI's shape). */
export function errorFromBody(body: string): { code?: string; message?: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const error = (parsed as { error?: unknown }).error;
    if (typeof error !== 'object' || error === null) return {};
    const { code, message } = error as { code?: unknown; message?: unknown };
    return {
      ...(typeof code === 'string' && code ? { code } : {}),
      ...(typeof message === 'string' && message ? { message } : {}),
    };
  } catch {
    return {};
  }
}

/** A failed dial to the Realtime API as this client has always reported it; `redact` scrubs the key. */
export function dialError(failure: DialFailure, redact: (text: string) => string): RealtimeError {
  switch (failure.kind) {
    case 'aborted':
      return new RealtimeError('aborted', 'Realtime connect aborted');
    case 'invalid-url':
      return new RealtimeError('invalid_url', `Invalid realtime URL: ${redact(failure.message)}`);
    case 'not-allowed':
      return new RealtimeError('outbound_refused', `Realtime API not reached: ${failure.message}`);
    case 'timeout':
      return new RealtimeError('connect_timeout', `Realtime API did not accept the connection within ${failure.afterMs} ms`);
    case 'upgrade-refused': {
      const status = failure.status ?? 0;
      const fromBody = errorFromBody(failure.body);
      const code = fromBody.code ?? codeForStatus(status);
      const detail = fromBody.message ? `: ${redact(fromBody.message)}` : '';
      return new RealtimeError(code, `Realtime API refused the connection (HTTP ${status}, ${code})${detail}`, { status });
    }
    case 'dns':
    case 'closed':
    case 'error':
      // connection.ts reads the error's code (ECONNREFUSED, ENOTFOUND, …) from this text for its plain words.
      return new RealtimeError('network_error', `Realtime connection failed: ${redact(failure.message)}`);
  }
}
