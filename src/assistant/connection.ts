import type { OutboundPolicy } from '../outbound/index.js';
import { RealtimeClient, RealtimeError, buildSessionUpdate, realtimeUrl, DEFAULT_ASSISTANT_MODEL, DEFAULT_REALTIME_URL } from './realtime/index.js';

/** The host of the voice model's URL, as the operator configured it (no path, no key). */
export function modelHost(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

/** Why the model could not be had, in a word a program can branch on. */
export type ModelFailureKind = 'refused' | 'timeout' | 'key_refused' | 'name_not_found' | 'not_allowed' | 'model_not_found' | 'no_confirmation' | 'closed' | 'other';

export interface ModelFailure {
  kind: ModelFailureKind;
  /** "The assistant could not reach the voice model at api.example.com: the connection was refused" */
  message: string;
}

/**
 * A failure to open a model session in plain words (issue 26, point 2): what an operator can act on
 * instead of "Realtime connection failed: connect ECONNREFUSED 127.0.0.1:18098". The raw error
 * stays in the log.
 */
export function plainModelFailure(err: unknown, url: string): ModelFailure {
  const at = `The assistant could not reach the voice model at ${modelHost(url)}`;
  const failure = (kind: ModelFailureKind, why: string): ModelFailure => ({ kind, message: `${at}: ${why}` });
  if (!(err instanceof RealtimeError)) return failure('other', err instanceof Error ? err.message : 'an unknown error');
  const text = err.message;
  if (err.code === 'network_error') {
    if (/ECONNREFUSED/.test(text)) return failure('refused', 'the connection was refused');
    if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(text)) return failure('name_not_found', `the name ${URL.canParse(url) ? new URL(url).hostname : url} was not found`);
    if (/ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/.test(text)) return failure('timeout', 'the connection timed out');
    if (/ECONNRESET|socket hang up/.test(text)) return failure('closed', 'the connection was closed before it was set up');
    return failure('other', `the connection failed (${text.replace(/^Realtime connection failed: /, '')})`);
  }
  if (err.code === 'connect_timeout') return failure('timeout', 'it did not answer in time');
  if (err.code === 'invalid_api_key' || err.code === 'permission_denied' || err.status === 401 || err.status === 403) {
    return failure('key_refused', `it refused the API key (HTTP ${err.status ?? 401}): check the key in Settings, under Assistant model`);
  }
  if (err.code === 'model_not_found') return failure('model_not_found', `it does not know the model (HTTP ${err.status ?? 404})`);
  if (err.code === 'outbound_refused') {
    // The policy's own reason names the address, the range and the variable to change: keep it.
    const why = /refused to connect to \S+: (.*)$/s.exec(text)?.[1];
    return failure('not_allowed', `the gateway's outbound rules do not allow that address${why ? `: ${why}` : ' (OUTBOUND_DENY / OUTBOUND_ALLOW)'}`);
  }
  if (err.code === 'invalid_url') return failure('other', 'its URL is not valid');
  if (err.status !== undefined) return failure('other', `it answered HTTP ${err.status} (${err.code})`);
  return failure('other', text);
}

export interface ConnectionTestResult {
  ok: boolean;
  /** Plain words: what happened. */
  message: string;
  kind?: ModelFailureKind;
  host: string;
  model: string;
  durationMs: number;
}

/**
 * Opens a model session with the stored settings, waits for the model to confirm it, and closes
 * it: what "Test the connection" does. Costs one session setup, no audio.
 */
export async function testModelConnection(o: {
  apiKey: string | undefined;
  url: string | undefined;
  model: string | undefined;
  outbound: OutboundPolicy;
  timeoutMs: number;
}): Promise<ConnectionTestResult> {
  const url = o.url ?? DEFAULT_REALTIME_URL;
  const model = o.model ?? DEFAULT_ASSISTANT_MODEL;
  const host = modelHost(url);
  const started = performance.now();
  const result = (ok: boolean, message: string, kind?: ModelFailureKind): ConnectionTestResult => ({
    ok,
    message,
    ...(kind ? { kind } : {}),
    host,
    model,
    durationMs: Math.round(performance.now() - started),
  });
  if (!o.apiKey) return result(false, 'The assistant has no model API key yet: add one in Settings, under Assistant model', 'key_refused');
  let client: RealtimeClient;
  try {
    // realtimeUrl throws on a URL it cannot use; connect reports it as invalid_url.
    realtimeUrl(url, model);
    client = await RealtimeClient.connect({ url, model, apiKey: o.apiKey, sessionUpdate: buildSessionUpdate({ ownerName: '', about: '' }), outbound: o.outbound, connectTimeoutMs: o.timeoutMs });
  } catch (err) {
    const failure = plainModelFailure(err, url);
    return result(false, failure.message, failure.kind);
  }
  try {
    let timer: NodeJS.Timeout | undefined;
    const confirmed = await new Promise<RealtimeError | 'confirmed' | 'timeout' | 'closed'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), o.timeoutMs);
      client.once('sessionUpdated', () => resolve('confirmed'));
      client.on('error', (err) => {
        if (err.fatal) resolve(err);
      });
      client.once('close', () => resolve('closed'));
    }).finally(() => clearTimeout(timer));
    if (confirmed === 'confirmed') return result(true, `The assistant reached the voice model at ${host}: it accepted the key and set up a session with ${model}`);
    if (confirmed === 'timeout') return result(false, `The assistant reached the voice model at ${host}, but it did not confirm the session in time`, 'no_confirmation');
    if (confirmed === 'closed') return result(false, `The assistant reached the voice model at ${host}, but it closed the connection before confirming the session`, 'closed');
    const failure = plainModelFailure(confirmed, url);
    return result(false, failure.message, failure.kind);
  } finally {
    await client.close();
  }
}
