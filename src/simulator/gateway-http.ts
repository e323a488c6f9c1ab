/** HTTP side of the phone protocol: addresses and pairing. */

export interface PhoneCredentials {
  deviceId: string;
  deviceToken: string;
}

export interface PairRequest {
  code: string;
  name: string;
  model?: string;
  android?: string;
  appVersion?: string;
}

/** A refused HTTP request or WebSocket upgrade, with the gateway's status and error body. */
export class GatewayRequestError extends Error {
  readonly status: number;
  /** `error.code` of the contract's error body, when the body has one. */
  readonly code: string | undefined;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  readonly body: unknown;

  constructor(what: string, status: number, bodyText: string) {
    let body: unknown = bodyText;
    try {
      body = JSON.parse(bodyText);
    } catch {
      // not JSON: keep the text
    }
    const error = isRecord(body) && isRecord(body['error']) ? body['error'] : {};
    const code = typeof error['code'] === 'string' ? error['code'] : undefined;
    const message = typeof error['message'] === 'string' ? error['message'] : undefined;
    super(`${what} failed: HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`);
    this.name = 'GatewayRequestError';
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `http(s)://host:port[/prefix]` plus a path, as http(s) or ws(s). */
export function endpointUrl(gatewayUrl: string, path: string, scheme: 'http' | 'ws'): string {
  const url = new URL(gatewayUrl);
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new Error(`gateway URL must be http(s):// or ws(s)://, got ${gatewayUrl}`);
  }
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  url.protocol = `${scheme}${secure ? 's' : ''}:`;
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** `POST /v1/phone/pair` (phone-protocol.md section 1). */
export async function pairDevice(gatewayUrl: string, request: PairRequest): Promise<PhoneCredentials> {
  const res = await fetch(endpointUrl(gatewayUrl, '/v1/phone/pair', 'http'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(request),
  });
  const text = await res.text();
  if (!res.ok) throw new GatewayRequestError('pairing', res.status, text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`pairing: the gateway answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  if (!isRecord(body) || typeof body['deviceId'] !== 'string' || typeof body['deviceToken'] !== 'string') {
    throw new Error(`pairing: the answer lacks deviceId or deviceToken: ${text.slice(0, 200)}`);
  }
  return { deviceId: body['deviceId'], deviceToken: body['deviceToken'] };
}
