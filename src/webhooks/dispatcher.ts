import { performance } from 'node:perf_hooks';
import { LIMITS } from '../limits.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/database.js';
import { WebhooksRepo, type WebhookDeliveryRow, type WebhookJobRow } from '../store/webhooks-repo.js';
import { webhookHeaders, type WebhookHeaders } from './signing.js';

/** The body POSTed for every call event (contract.md, Webhooks). */
export interface WebhookBody {
  event: string;
  eventId: string;
  occurredAt: string;
  receivedAt: string;
  payload: Record<string, unknown>;
  /** The Call as the REST interface shows it. */
  call: object;
  /** The assistant's message, once it took one on this call. */
  message?: object;
  /** What was said while the assistant was on the call; on the event that ends it. */
  transcript?: object[];
}

export interface WebhookJobInput {
  callId: string;
  eventId: string;
  event: string;
  /** The call's own webhookUrl, else the default of the settings. */
  url: string;
  body: WebhookBody;
}

/** One attempt, as `GET /v1/webhook-deliveries` shows it. */
export interface WebhookDelivery {
  id: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  ok: boolean;
  error?: string;
  at: string;
}

export interface WebhookDispatcherOptions {
  store: { db: Db };
  log: Logger;
  /** Read at every attempt, so a rotated secret applies to the next attempt. */
  secret: () => string;
  /** Delay before attempt 2, 3, ...; attempts = delays + 1 (4 with the contract's three delays). */
  retryDelaysMs: readonly number[];
  timeoutMs?: number;
  now?: () => number;
  onDelivery?: (delivery: WebhookDelivery) => void;
  /** Attempts in flight at once, across all calls. */
  concurrency?: number;
}

type AttemptOutcome = { ok: boolean; statusCode: number | null; error: string | null } | 'interrupted';

const STOP_GRACE_MS = 2_000;
/** Back-off after the store failed, so a broken database cannot turn the scheduler into a busy loop. */
const STORE_ERROR_BACKOFF_MS = 1_000;
const SCAN_BATCH = 500;
const MAX_TIMER_MS = 2 ** 31 - 1;

const iso = (ms: number): string => new Date(ms).toISOString();

export const toWebhookDelivery = (row: WebhookDeliveryRow): WebhookDelivery => ({
  id: row.id,
  callId: row.callId,
  eventId: row.eventId,
  event: row.event,
  url: row.url,
  attempt: row.attempt,
  ok: row.ok,
  ...(row.error === null ? {} : { error: row.error }),
  at: row.at,
});

/**
 * Delivers call events to webhook URLs. Jobs live in the database (enqueued in the caller's
 * transaction), one timer wakes the scheduler at the next due time, and each wake reads the due jobs
 * back: so what is due after a restart is simply what the table holds.
 *
 * Ordering: among a call's jobs still at attempt 1, only the oldest may be in flight, so first attempts
 * follow the call's timeline; jobs waiting for a retry do not hold later events back.
 */
export class WebhookDispatcher {
  private readonly repo: WebhooksRepo;
  private readonly log: Logger;
  private readonly secret: () => string;
  private readonly retryDelaysMs: readonly number[];
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly onDelivery: ((delivery: WebhookDelivery) => void) | undefined;
  private readonly concurrency: number;

  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private readonly inFlight = new Map<number, { job: WebhookJobRow; done: Promise<void> }>();
  /** Jobs whose outcome could not be stored, held back until the given time. */
  private readonly heldUntil = new Map<number, number>();
  private abort = new AbortController();

  constructor(options: WebhookDispatcherOptions) {
    if (options.retryDelaysMs.length === 0) throw new Error('retryDelaysMs must list at least one delay');
    this.repo = new WebhooksRepo(options.store.db);
    this.log = options.log.child({ component: 'webhooks' });
    this.secret = options.secret;
    this.retryDelaysMs = [...options.retryDelaysMs];
    this.maxAttempts = this.retryDelaysMs.length + 1;
    this.timeoutMs = options.timeoutMs ?? LIMITS.webhookTimeoutMs;
    this.now = options.now ?? Date.now;
    this.onDelivery = options.onDelivery;
    this.concurrency = options.concurrency ?? 16;
  }

  /**
   * Stores the job (attempt 1, due now); no network I/O. Without tx the dispatcher is woken at once;
   * with tx the caller calls kick() once its transaction has committed.
   */
  async enqueue(job: WebhookJobInput, tx?: Db): Promise<void> {
    await this.repo.insertJob(
      { callId: job.callId, eventId: job.eventId, event: job.event, url: job.url, body: JSON.stringify(job.body), attempt: 1, dueAt: iso(this.now()) },
      tx,
    );
    if (!tx) this.kick();
  }

  /** Looks for due jobs soon; cheap and safe to call at any time. */
  kick(): void {
    this.wake(0);
  }

  /** Resumes the jobs stored in the database: due ones go out at once, the others at their time. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.heldUntil.clear();
    const pending = await this.repo.countJobs();
    if (pending > 0) this.log.info({ pending }, 'resuming webhook jobs');
    await this.runScan();
  }

  /** Stops scheduling and waits (at most about 2 s) for attempts in flight; later ones resume on the next start. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    await this.scanning;
    const all = () => Promise.all([...this.inFlight.values()].map((f) => f.done));
    if (this.inFlight.size === 0) return;
    let grace: NodeJS.Timeout | undefined;
    const expired = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => {
        grace = setTimeout(() => resolve(true), STOP_GRACE_MS);
      }),
    ]);
    clearTimeout(grace);
    if (expired) {
      this.abort.abort();
      await all();
    }
  }

  async listDeliveries(options: { callId?: string | undefined; limit: number }): Promise<WebhookDelivery[]> {
    return (await this.repo.listDeliveries(options)).map(toWebhookDelivery);
  }

  private wake(delayMs: number): void {
    if (!this.running) return;
    const delay = Math.min(Math.max(0, Math.ceil(delayMs)), MAX_TIMER_MS);
    const at = this.now() + delay;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.runScan();
    }, delay);
    this.timer.unref();
  }

  /** One scan at a time; a wake during a scan runs another one right after it. */
  private runScan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      try {
        do {
          this.rescan = false;
          await this.scan();
        } while (this.rescan && this.running);
      } catch (err) {
        this.log.error({ err }, 'webhook scheduler could not read its jobs');
        this.wake(STORE_ERROR_BACKOFF_MS);
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  private async scan(): Promise<void> {
    if (!this.running) return;
    const nowMs = this.now();
    const due = await this.repo.dueJobs(iso(nowMs), SCAN_BATCH);
    // A call whose attempt-1 job is in flight (or older and waiting) holds its later first attempts.
    const busyCalls = new Set<string>();
    for (const { job } of this.inFlight.values()) if (job.attempt === 1) busyCalls.add(job.callId);
    let nextWake = Infinity;
    for (const job of due) {
      if (!this.running) return;
      if (this.inFlight.has(job.id)) continue;
      if (job.attempt === 1) {
        if (busyCalls.has(job.callId)) continue;
        busyCalls.add(job.callId);
      }
      const held = this.heldUntil.get(job.id);
      if (held !== undefined) {
        if (held > nowMs) {
          nextWake = Math.min(nextWake, held);
          continue;
        }
        this.heldUntil.delete(job.id);
      }
      if (this.inFlight.size >= this.concurrency) break;
      this.launch(job);
    }
    const later = await this.repo.nextDueAfter(iso(nowMs));
    if (later !== null) nextWake = Math.min(nextWake, Date.parse(later));
    if (nextWake !== Infinity) this.wake(nextWake - this.now());
  }

  private launch(job: WebhookJobRow): void {
    const done = this.attempt(job).finally(() => {
      this.inFlight.delete(job.id);
      this.kick();
    });
    this.inFlight.set(job.id, { job, done });
  }

  private async attempt(job: WebhookJobRow): Promise<void> {
    const log = this.log.child({ callId: job.callId, eventId: job.eventId, event: job.event, attempt: job.attempt });
    const startedMs = this.now();
    const started = performance.now();
    const outcome = await this.post(job, startedMs);
    if (outcome === 'interrupted') {
      log.info('webhook attempt interrupted by shutdown; it is sent again after the restart');
      return;
    }
    const durationMs = Math.round(performance.now() - started);
    const last = job.attempt >= this.maxAttempts;
    const retryAt = outcome.ok || last ? null : this.now() + (this.retryDelaysMs[job.attempt - 1] ?? 0);
    let id: number;
    try {
      id = await this.repo.transaction(async (repo) => {
        const rowId = await repo.insertDelivery({
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
        });
        if (retryAt === null) await repo.deleteJob(job.id);
        else await repo.rescheduleJob(job.id, { attempt: job.attempt + 1, dueAt: iso(retryAt) });
        return rowId;
      });
    } catch (err) {
      log.error({ err }, 'could not record the webhook attempt; holding the job back');
      this.heldUntil.set(job.id, this.now() + Math.max(STORE_ERROR_BACKOFF_MS, this.retryDelaysMs[job.attempt - 1] ?? 0));
      return;
    }

    const fields = { host: hostOf(job.url), statusCode: outcome.statusCode, durationMs };
    if (outcome.ok) log.info(fields, 'webhook delivered');
    else if (retryAt !== null) log.warn({ ...fields, error: outcome.error, retryAt: iso(retryAt) }, 'webhook attempt failed; will retry');
    else log.warn({ ...fields, error: outcome.error }, `webhook attempt failed; dropped after ${job.attempt} attempts`);

    if (this.onDelivery) {
      try {
        this.onDelivery(
          toWebhookDelivery({ id, callId: job.callId, eventId: job.eventId, event: job.event, url: job.url, attempt: job.attempt, ok: outcome.ok, statusCode: outcome.statusCode, error: outcome.error, durationMs, at: iso(startedMs) }),
        );
      } catch (err) {
        log.error({ err }, 'onDelivery listener failed');
      }
    }
  }

  private async post(job: WebhookJobRow, startedMs: number): Promise<AttemptOutcome> {
    let headers: WebhookHeaders;
    try {
      headers = webhookHeaders({ secret: this.secret(), id: job.eventId, timestamp: Math.floor(startedMs / 1000), body: job.body });
    } catch (err) {
      return { ok: false, statusCode: null, error: `cannot sign: ${errorText(err)}` };
    }
    const stopSignal = this.abort.signal;
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), stopSignal]);
    let status: number;
    try {
      // Redirects are not followed: the receiver is the URL that was configured.
      const res = await fetch(job.url, { method: 'POST', headers, body: job.body, signal, redirect: 'manual' });
      status = res.status;
      await drain(res);
    } catch (err) {
      if (stopSignal.aborted) return 'interrupted';
      if (signal.aborted) return { ok: false, statusCode: null, error: `timeout after ${this.timeoutMs} ms` };
      return { ok: false, statusCode: null, error: errorText(err) };
    }
    const ok = status >= 200 && status < 300;
    return { ok, statusCode: status, error: ok ? null : `HTTP ${status}` };
  }
}

/** Most of a receiver's answer read (and dropped) so its connection can be reused; past that it is cut. */
const MAX_ANSWER_BYTES = 64 * 1024;

async function drain(res: Response): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let read = 0;
  try {
    while (read <= MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The answer's body does not decide the attempt; its status does.
  }
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && cause !== err.message ? `${err.message}: ${cause}` : err.message;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid url';
  }
}
