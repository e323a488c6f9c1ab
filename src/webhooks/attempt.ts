import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';
import type { OutboundPolicy } from '../outbound/index.js';
import type { WebhookJobRow, WebhooksRepo } from '../store/webhooks-repo.js';
import { iso, toWebhookDelivery, type WebhookDelivery } from './delivery.js';
import type { JobContent, QueuedJob } from './queue.js';
import type { AttemptRecorder } from './recorder.js';
import { ATTEMPT_OUTCOMES, WebhookSender, type AttemptOutcome, type PostOutcome } from './sender.js';
import { webhookHeaders, type WebhookHeaders } from './signing.js';

/** What an attempt leaves: the job's next attempt, or null when it is done (or gone). */
export type Next = { attempt: number; dueAt: number } | null;

/** Back-off after the store failed, so a broken database cannot turn the scheduler into a busy loop. */
const STORE_ERROR_BACKOFF_MS = 1_000;

export interface WebhookAttemptsOptions {
  repo: WebhooksRepo;
  recorder: AttemptRecorder;
  log: Logger;
  /** Read at every attempt, so a rotated secret applies to the next attempt. */
  secret: () => string;
  /** Delay before attempt 2, 3, ...; attempts = delays + 1. */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  outbound: OutboundPolicy;
  now: () => number;
  onDelivery: ((delivery: WebhookDelivery) => void) | undefined;
}

/**
 * One attempt of a job and what it leaves: the job's body (from the queue, else read by id), the
 * signed POST, the attempt's row recorded with the job's next attempt (or its end), the log line and
 * the live channel's delivery. The dispatcher decides when; this decides what an attempt does.
 */
export class WebhookAttempts {
  readonly maxAttempts: number;
  /** Attempts made since the gateway started, by how they ended (/metrics). */
  private readonly outcomes = Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, 0])) as Record<AttemptOutcome, number>;
  private sender: WebhookSender | undefined;
  private abort = new AbortController();

  constructor(private readonly o: WebhookAttemptsOptions) {
    this.maxAttempts = o.retryDelaysMs.length + 1;
  }

  /** At every start: a fresh signal to interrupt the attempts, and the sender's connections. */
  open(): void {
    this.abort = new AbortController();
    // Every attempt in flight listens to it: up to the queue's total.
    setMaxListeners(0, this.abort.signal);
    this.sender = new WebhookSender({ timeoutMs: this.o.timeoutMs, outbound: this.o.outbound });
  }

  /** Interrupts the attempts in flight: each ends as not made, and is sent again after the restart. */
  interrupt(): void {
    this.abort.abort();
  }

  close(): void {
    this.sender?.close();
    this.sender = undefined;
  }

  counts(): Record<AttemptOutcome, number> {
    return { ...this.outcomes };
  }

  /** The job is held back (the store failed): tried again after its retry delay, at least STORE_ERROR_BACKOFF_MS. */
  private hold(job: QueuedJob): Next {
    return { attempt: job.attempt, dueAt: this.o.now() + Math.max(STORE_ERROR_BACKOFF_MS, this.o.retryDelaysMs[job.attempt - 1] ?? 0) };
  }

  async run(queued: QueuedJob): Promise<Next> {
    let job: JobContent & { callId: string; attempt: number };
    if (queued.content) job = { ...queued.content, callId: queued.callId, attempt: queued.attempt };
    else {
      let row: WebhookJobRow | null;
      try {
        row = await this.o.repo.jobById(queued.id);
      } catch (err) {
        this.o.log.error({ err, callId: queued.callId }, 'could not read a webhook job; holding it back');
        return this.hold(queued);
      }
      if (!row) return null;
      job = row;
    }
    const log = this.o.log.child({ callId: job.callId, eventId: job.eventId, event: job.event, attempt: job.attempt });
    const startedMs = this.o.now();
    const started = performance.now();
    const outcome = await this.post(job, startedMs);
    if (outcome === 'interrupted') {
      log.info('webhook attempt interrupted by shutdown; it is sent again after the restart');
      return null;
    }
    this.outcomes[outcome.outcome] += 1;
    const durationMs = Math.round(performance.now() - started);
    const last = job.attempt >= this.maxAttempts;
    const retryAt = outcome.ok || last ? null : this.o.now() + (this.o.retryDelaysMs[job.attempt - 1] ?? 0);
    const row = {
      callId: job.callId,
      eventId: job.eventId,
      event: job.event,
      url: job.url,
      attempt: job.attempt,
      ok: outcome.ok,
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs,
      at: iso(startedMs),
      retryOf: job.retryOf,
      errorKind: outcome.ok ? null : outcome.outcome,
      // An empty answer (a 204) says nothing: kept as none.
      answer: outcome.answer || null,
      nextAt: retryAt === null ? null : iso(retryAt),
      gaveUp: !outcome.ok && retryAt === null,
    };
    let id: number;
    try {
      // The body is kept once per delivery, on its first attempt's row (its later rows find it there).
      id = await this.o.recorder.record({ delivery: { ...row, body: job.attempt === 1 ? job.body : null }, jobId: queued.id, next: retryAt === null ? null : { attempt: job.attempt + 1, dueAt: iso(retryAt) } });
    } catch (err) {
      log.error({ err }, 'could not record the webhook attempt; holding the job back');
      return this.hold(queued);
    }

    const fields = { host: hostOf(job.url), statusCode: outcome.statusCode, durationMs };
    if (outcome.ok) log.info(fields, 'webhook delivered');
    else if (retryAt !== null) log.warn({ ...fields, error: outcome.error, retryAt: iso(retryAt) }, 'webhook attempt failed; will retry');
    else log.warn({ ...fields, error: outcome.error }, `webhook attempt failed; dropped after ${job.attempt} attempts`);

    if (this.o.onDelivery) {
      try {
        this.o.onDelivery(toWebhookDelivery({ id, ...row }));
      } catch (err) {
        log.error({ err }, 'onDelivery listener failed');
      }
    }
    return retryAt === null ? null : { attempt: job.attempt + 1, dueAt: retryAt };
  }

  private post(job: JobContent, startedMs: number): Promise<PostOutcome> {
    let headers: WebhookHeaders;
    try {
      headers = webhookHeaders({ secret: this.o.secret(), id: job.eventId, timestamp: Math.floor(startedMs / 1000), body: job.body });
    } catch (err) {
      return Promise.resolve({ outcome: 'refused', ok: false, statusCode: null, error: `cannot sign: ${(err as Error).message}`, answer: null });
    }
    if (!this.sender) return Promise.resolve('interrupted');
    const secret = this.o.secret();
    return this.sender.post(job.url, headers, job.body, this.abort.signal).then((outcome) =>
      outcome === 'interrupted' || outcome.answer === null ? outcome : { ...outcome, answer: withoutSecrets(outcome.answer, [headers['webhook-signature'], secret]) },
    );
  }
}

/**
 * A receiver that echoes what it got must not put the signature or the secret into the log (which
 * every console user reads): each is cut out, as are its key and MAC parts on their own.
 */
function withoutSecrets(answer: string, secrets: readonly string[]): string {
  let out = answer;
  const parts = secrets.flatMap((s) => [s, s.replace(/^whsec_/, ''), s.replace(/^v1,/, '')]).filter((s) => s.length >= 8);
  for (const part of parts.sort((a, b) => b.length - a.length)) out = out.split(part).join('[hidden]');
  return out;
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : 'invalid url';
}
