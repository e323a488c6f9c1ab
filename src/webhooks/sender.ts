import http from 'node:http';
import https from 'node:https';
import type { OutboundPolicy } from '../outbound/index.js';
import { withoutCredentials } from '../outbound/url.js';
import type { AttemptOutcome } from './outcomes.js';
import type { WebhookHeaders } from './signing.js';

export { ATTEMPT_OUTCOMES, type AttemptOutcome } from './outcomes.js';

/** `answer`: the first bytes of the receiver's answer as text (at most ANSWER_KEPT_BYTES), null when no answer came. */
export type PostOutcome = { outcome: AttemptOutcome; ok: boolean; statusCode: number | null; error: string | null; answer: string | null } | 'interrupted';

/** What the log keeps of a receiver's answer: enough to read its error message, bounded for the store. */
export const ANSWER_KEPT_BYTES = 1024;

/** Most of a receiver's answer read (and dropped) so its connection can be reused; past that it is cut. */
const MAX_ANSWER_BYTES = 64 * 1024;

type Lookup = ReturnType<OutboundPolicy['socketOptions']>['lookup'];

const failed = (error: string, outcome: AttemptOutcome): PostOutcome => ({ outcome, ok: false, statusCode: null, error, answer: null });

/**
 * POSTs webhook bodies over keep-alive connections. Each attempt has one timer of its own that
 * covers connecting, the answer's head and reading its body: nothing here can outlive `timeoutMs`
 * (an AbortSignal.timeout inside AbortSignal.any can be collected on Node 20 before it fires).
 */
export class WebhookSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  constructor(
    private readonly o: {
      timeoutMs: number;
      outbound: OutboundPolicy;
    },
  ) {}

  /** `stop` interrupts the attempt: it then counts as not made. */
  post(url: string, headers: WebhookHeaders, body: string, stop: AbortSignal): Promise<PostOutcome> {
    const checked = this.check(url);
    if ('refused' in checked) return Promise.resolve(checked.refused);
    const { target, lookup } = checked;
    if (stop.aborted) return Promise.resolve('interrupted');

    return new Promise<PostOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: PostOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stop.removeEventListener('abort', onStop);
        resolve(outcome);
      };
      const send = target.protocol === 'https:' ? https.request : http.request;
      let req: http.ClientRequest;
      try {
        req = send(target, {
          method: 'POST',
          agent: this.agents[target.protocol as 'http:' | 'https:'],
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          lookup,
        });
      } catch (err) {
        // A header HTTP cannot carry (a webhook-id stored before event ids were checked): never sent, never a crash.
        resolve(failed(`cannot send the request: ${(err as Error).message}`, 'refused'));
        return;
      }
      // Set once the answer's head is in: a body that stalls after it does not undo the status.
      let answered: PostOutcome | undefined;
      const timer = setTimeout(() => {
        settle(answered ?? failed(`timeout after ${this.o.timeoutMs} ms`, 'timeout'));
        req.destroy();
      }, this.o.timeoutMs);
      const onStop = (): void => {
        settle('interrupted');
        req.destroy();
      };
      stop.addEventListener('abort', onStop, { once: true });
      req.on('error', (err: Error & { code?: string }) => settle(failed(errorText(err), err.code === 'OUTBOUND_REFUSED' ? 'refused' : 'network_error')));
      // Redirects are not followed: the receiver is the URL that was configured.
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const head: PostOutcome = { outcome: ok ? 'ok' : 'http_error', ok, statusCode: status, error: ok ? null : `HTTP ${status}`, answer: '' };
        answered = head;
        // The answer's body does not decide the attempt, its status does; it is read so the
        // connection can be reused, and a long one is cut. Its first bytes are kept: a receiver's
        // error message is what tells the operator why.
        let read = 0;
        const kept: Buffer[] = [];
        let keptBytes = 0;
        const outcome = (): PostOutcome => ({ ...head, answer: answerText(Buffer.concat(kept)) });
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (keptBytes < ANSWER_KEPT_BYTES) {
            const part = chunk.subarray(0, ANSWER_KEPT_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
            answered = outcome();
          }
          if (read > MAX_ANSWER_BYTES) {
            res.destroy();
            settle(outcome());
          }
        });
        res.on('end', () => settle(outcome()));
        res.on('error', () => settle(outcome()));
        res.on('close', () => settle(outcome()));
      });
      req.end(body);
    });
  }

  /** What is checked before any socket opens: the URL, its scheme, that it carries no credentials, and the outbound rules. */
  private check(url: string): { target: URL; lookup: Lookup } | { refused: PostOutcome } {
    const refused = (error: string) => ({ refused: failed(error, 'refused') });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return refused('invalid URL');
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return refused(`unsupported protocol ${target.protocol}`);
    // Only rows stored before such URLs were refused at the API can carry one; never send it.
    if (!withoutCredentials(url)) return refused('the URL has a user name or password, which the gateway does not send');
    try {
      return { target, lookup: this.o.outbound.socketOptions(target).lookup };
    } catch (err) {
      return refused((err as Error).message);
    }
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

/**
 * The kept bytes as safe text: UTF-8 (a character cut at the bound is dropped), control characters
 * other than tab and newline removed so the console and logs show plain text.
 */
export function answerText(bytes: Buffer): string {
  // eslint-disable-next-line no-control-regex
  return bytes.toString('utf8').replace(/\uFFFD$/u, '').replace(/[\u0000-\u0008\u000B-\u001F\u007F]/gu, '');
}

function errorText(err: Error & { code?: string }): string {
  if (err.code === 'OUTBOUND_REFUSED') return err.message;
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}
