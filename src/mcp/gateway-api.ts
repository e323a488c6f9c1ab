/**
 * The MCP server's way to the gateway: its public HTTP API with an API key, nothing in-process, so the
 * server runs beside any gateway (local or remote) and sees exactly what a program would.
 */

export interface GatewayApiOptions {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  apiKey: string;
  /** Per request; a gateway that does not answer becomes a tool error rather than a hung tool. */
  timeoutMs?: number;
}

/** A failed request, worded for a model: what went wrong and what it can do about it. */
export class GatewayApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number | null,
    readonly issues: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

const HINTS: Record<string, string> = {
  UNAUTHORIZED: 'The MCP server\'s API key (VOICE_GATEWAY_API_KEY) was refused; the user must set a valid key. Retrying will not help.',
  DEVICE_OFFLINE: 'The phone is not connected, or the assistant has no model key: call list_phones to see which phones are connected.',
  DEVICE_BUSY: 'The phone already has a call in progress: wait for it to end or hang it up first.',
  DEVICE_TIMEOUT: 'The phone did not acknowledge in time; it may be on a bad network. Retry once, then check list_phones.',
  INVALID_STATE: 'The call is not in a state that allows this; get_call shows its state.',
  NOT_FOUND: 'Check the id: list_phones gives phone ids, place_call and get_call give call ids.',
  VALIDATION_ERROR: 'Fix the arguments named in the issues and call again.',
  RATE_LIMITED: 'Too many requests: wait a little and retry.',
  SERVICE_UNAVAILABLE: 'The gateway\'s database is slow: retry in a few seconds.',
};

/** The text a model sees for a failed tool call. */
export function describeError(err: GatewayApiError): string {
  const issues = err.issues.map((i) => `\n- ${i.path}: ${i.message}`).join('');
  const hint = HINTS[err.code];
  return `${err.code}: ${err.message}${issues}${hint ? `\n${hint}` : ''}`;
}

export class GatewayApi {
  private readonly base: string;

  constructor(private readonly o: GatewayApiOptions) {
    this.base = o.baseUrl.replace(/\/+$/, '');
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        headers: { authorization: `Bearer ${this.o.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 15_000),
      });
    } catch (err) {
      const why = err instanceof Error && err.name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
      throw new GatewayApiError('GATEWAY_UNREACHABLE', `The gateway at ${this.base} ${why}. Is it running, and is VOICE_GATEWAY_URL right?`, null);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.ok) return parsed as T;
    const error = (parsed as { error?: { code?: unknown; message?: unknown; issues?: unknown } } | undefined)?.error;
    const issues = Array.isArray(error?.issues)
      ? (error.issues as Array<{ path?: unknown; message?: unknown }>).map((i) => ({ path: String(i.path ?? ''), message: String(i.message ?? '') }))
      : [];
    throw new GatewayApiError(
      typeof error?.code === 'string' ? error.code : `HTTP_${res.status}`,
      typeof error?.message === 'string' ? error.message : `The gateway answered ${res.status}`,
      res.status,
      issues,
    );
  }
}
