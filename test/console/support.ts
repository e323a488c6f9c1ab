import { readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { SETUP_TOKEN_FILE } from '../../src/accounts/index.js';
import { PhoneSimulator } from '../../src/simulator/index.js';
import type { Endpoint, TestGateway } from '../helpers/gateway.js';
import { DEFAULT_WAIT_MS, Recorded } from '../helpers/waits.js';

export const OWNER = { email: 'owner@example.com', password: 'correct horse battery' };

/** A JSON body or message as the tests read it: field by field, without casts. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberate: assertions check the shape
export type Loose = any;

export interface ConsoleResponse<T = Loose> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Prints a response for assertion messages. */
export const show = (res: Pick<ConsoleResponse, 'status' | 'text'>): string => `${res.status} ${res.text.slice(0, 400)}`;

/**
 * Requests as the console makes them: JSON, no API key, the session cookie (when given) and the
 * gateway's own Origin on requests that change state (as a browser sends it), unless overridden.
 */
export function consoleClient(g: TestGateway, cookie?: string) {
  return async <T = Loose>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ConsoleResponse<T>> => {
    const sent: Record<string, string> = {
      ...(cookie ? { cookie } : {}),
      ...(method !== 'GET' ? { origin: g.url } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    };
    const res = await fetch(g.url + path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}

/** The `name=value` part of a Set-Cookie header, to send back as Cookie. */
export function cookieOf(res: { headers: Headers }): string {
  const header = res.headers.get('set-cookie');
  if (!header) throw new Error('no Set-Cookie in the response');
  return header.split(';')[0]!;
}

/** The first run's setup token, read where an operator finds it besides the log: DATA_DIR/setup-token. */
export const setupTokenOf = (g: TestGateway): string => readFileSync(path.join(g.dataDir, SETUP_TOKEN_FILE), 'utf8').trim();

export async function setupOwner(g: TestGateway, account = OWNER): Promise<string> {
  const res = await consoleClient(g)('POST', '/v1/auth/setup', { ...account, setupToken: setupTokenOf(g) });
  if (res.status !== 201) throw new Error(`setup failed: ${show(res)}`);
  return cookieOf(res);
}

export async function signIn(g: TestGateway, account = OWNER): Promise<string> {
  const res = await consoleClient(g)('POST', '/v1/auth/login', account);
  if (res.status !== 200) throw new Error(`sign-in failed: ${show(res)}`);
  return cookieOf(res);
}

/** A simulated phone, paired through the API and connected. */
export async function pairedPhone(g: TestGateway, options: Partial<ConstructorParameters<typeof PhoneSimulator>[0]> = {}): Promise<PhoneSimulator> {
  const pairing = await g.api<{ code: string }>('POST', '/v1/pairing', { publicUrl: g.url });
  const sim = new PhoneSimulator({ gatewayUrl: g.url, name: 'Test phone', ...options });
  await sim.pair(pairing.body.code);
  await sim.connect();
  return sim;
}

/** The live channel as a client sees it: every message received, and a way to wait for one. */
export async function openLive(g: Endpoint, headers: Record<string, string>) {
  const ws = new WebSocket(`${g.url.replace(/^http/, 'ws')}/v1/live`, { headers });
  const received = new Recorded<Record<string, Loose>>('live channel', (m) => String(m.type));
  ws.on('message', (data) => received.add(JSON.parse(String(data)) as Record<string, Loose>));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
  return {
    ws,
    received,
    messages: received.items,
    next: (test: (m: Record<string, Loose>) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<Record<string, Loose>> =>
      received.next(test, { timeoutMs, what: 'matching live message' }),
    close: () => ws.close(),
  };
}

/** The status of a refused WebSocket upgrade (and its body). */
export function refusedUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', () => undefined);
  });
}
