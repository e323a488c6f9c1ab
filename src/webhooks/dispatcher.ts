import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { GatewayError, notFound } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { Logger } from '../log.js';
import { OutboundPolicy } from '../outbound/index.js';
import type { Db } from '../store/database.js';
import type { ClaimedJobRow } from '../store/cluster-repo.js';
import { WebhooksRepo, type DeliveryQuery, type WebhookDeliveryRow, type WebhookJobRow } from '../store/webhooks-repo.js';
import { DeliveryQueue, type DeliveryQueueLimits, type JobContent, type QueuedJob } from './queue.js';
import { ONE_GATEWAY, type JobOwnership } from './ownership.js';
import { groupByEvent, type WebhookEventDelivery } from './event-log.js';
import { AttemptRecorder } from './recorder.js';
import { ATTEMPT_OUTCOMES, WebhookSender, type AttemptOutcome, type PostOutcome } from './sender.js';
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
  /** The task the call's assistant was given, and how it went; on the event that ends the call. */
  task?: object;
  outcome?: object;
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
  /** The delivery a person asked to send again; this attempt belongs to that new delivery. */
  retryOf?: number;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** How a failed attempt ended; absent when delivered or recorded before reasons were kept. */
  errorKind?: Exclude<AttemptOutcome, 'ok'>;
  durationMs: number;
  /** The first bytes of the receiver's answer (at most 1 KiB), when it answered. */
  answer?: string;
  /** The attempt this one scheduled next. */
  nextAttemptAt?: string;
  /** The gateway gave up after this failed attempt. */
  gaveUp: boolean;
}

/** A delivery scheduled again by `retry()`: its first attempt goes out at `dueAt`. */
export interface ScheduledRetry {
  retryOf: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  dueAt: string;
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
  /** Which addresses receivers may resolve to; the default rules without it. */
  outbound?: OutboundPolicy;
  /** Attempts in flight at once to one receiver (URL origin), and in all. */
  concurrency?: Partial<DeliveryQueueLimits>;
  /** Which jobs this gateway attempts: all of them (`ONE_GATEWAY`, the default), or a cluster node's (cluster/jobs.ts). */
  ownership?: JobOwnership;
}

/** Fields another domain adds to a call's webhook bodies (the assistant's message, the transcript, a task's outcome); `ended`: the event that ends the call. */
export type BodyFields = (callId: string, ended: boolean) => Promise<Record<string, unknown>>;

/** A stored job, as `release()` takes it once the transaction that stored it has committed; `held` false: another node's to claim. */
export type StoredWebhookJob = QueuedJob & { held: boolean };

type Lifecycle = 'stopped' | 'starting' | 'running' | 'stopping';
/** What an attempt leaves: the job's next attempt, or null when it is done (or gone). */
type Next = { attempt: number; dueAt: number } | null;

const STOP_GRACE_MS = 2_000;
/** Back-off after the store failed, so a broken database cannot turn the scheduler into a busy loop. */
const STORE_ERROR_BACKOFF_MS = 1_000;
const LOAD_PAGE = 1_000;
/** Bodies of queued jobs kept in memory at most; past it, a job's row is read when it goes out. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
const MAX_TIMER_MS = 2 ** 31 - 1;

const iso = (ms: number): string => new Date(ms).toISOString();

/** A stored job as the schedule keeps it: without its body. */
const queuedOf = (row: { id: number; callId: string; url: string; attempt: number; dueAt: string }): QueuedJob => ({
  id: row.id,
  callId: row.callId,
  origin: originOf(row.url),
  attempt: row.attempt,
  dueAt: Date.parse(row.dueAt),
});

/** The receiver a URL names (its lane); a URL that does not parse gets a lane of its own and fails. */
function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : 'invalid';
}

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
  ...(row.retryOf === null ? {} : { retryOf: row.retryOf }),
  ...(row.statusCode === null ? {} : { statusCode: row.statusCode }),
  ...(isErrorKind(row.errorKind) ? { errorKind: row.errorKind } : {}),
  durationMs: row.durationMs,
  ...(row.answer === null ? {} : { answer: row.answer }),
  ...(row.nextAt === null ? {} : { nextAttemptAt: row.nextAt }),
  gaveUp: row.gaveUp,
});

function isErrorKind(kind: string | null): kind is Exclude<AttemptOutcome, 'ok'> {
  return kind !== null && kind !== 'ok' && (ATTEMPT_OUTCOMES as readonly string[]).includes(kind);
}

/**
 * Delivers call events to webhook URLs. Jobs live in the database (enqueued in the caller's
 * transaction), so what is due after a restart is what the table holds. In memory the scheduler
 * keeps every job without its body (DeliveryQueue): one lane per receiver, so a receiver that hangs
 * or fails holds only its own slots, and no attempt rescans the table. The body is read by id when
 * the attempt starts.
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
  private readonly outbound: OutboundPolicy;
  private readonly queue: DeliveryQueue;
  private readonly recorder: AttemptRecorder;
  /** Bytes of the bodies the queue holds (see MAX_CACHED_BYTES). */
  private cachedBytes = 0;
  /** Attempts made since the gateway started, by how they ended (/metrics). */
  private readonly attempts = Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, 0])) as Record<AttemptOutcome, number>;

  private state: Lifecycle = 'stopped';
  private starting: Promise<void> | undefined;
  /** Jobs released while the stored ones are being loaded. */
  private releasedWhileStarting: QueuedJob[] = [];
  private sender: WebhookSender | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly inFlight = new Map<number, Promise<void>>();
  private abort = new AbortController();
  private readonly ownership: JobOwnership;
  /** What other domains add to a call's webhook bodies, in the order they were added. */
  private readonly enrichers: BodyFields[] = [];
  /** Retries are scheduled one at a time, so two clicks cannot both find the event idle. */
  private retrying: Promise<unknown> = Promise.resolve();

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
    this.outbound = options.outbound ?? new OutboundPolicy();
    this.queue = new DeliveryQueue({ perReceiver: LIMITS.webhookAttemptsPerReceiver, total: LIMITS.webhookAttemptsInFlight, ...options.concurrency });
    const ownership = (this.ownership = options.ownership ?? ONE_GATEWAY);
    this.recorder = new AttemptRecorder(this.repo, () => ownership.holder() ?? undefined);
  }

  /** Adds fields to every call webhook body from now on (the gateway's wiring does, before any call changes). */
  enrichBodies(fields: BodyFields): void {
    this.enrichers.push(fields);
  }

  /** The body of a call's event with the fields the enrichers add (a later enricher's win); `ended`: the event ends the call. */
  async enrich(callId: string, ended: boolean, body: WebhookBody): Promise<WebhookBody> {
    let fields: Record<string, unknown> = {};
    for (const enricher of this.enrichers) fields = { ...fields, ...(await enricher(callId, ended)) };
    return { ...body, ...fields };
  }

  /**
   * Stores the job (attempt 1, due now); no network I/O. Without tx it is scheduled at once; with tx
   * the caller passes the result to release() once its transaction has committed.
   */
  async enqueue(job: WebhookJobInput, tx?: Db): Promise<StoredWebhookJob> {
    return this.store(job.callId, { eventId: job.eventId, event: job.event, url: job.url, body: JSON.stringify(job.body), retryOf: null }, tx);
  }

  private async store(callId: string, content: JobContent, tx?: Db): Promise<StoredWebhookJob> {
    const dueAt = this.now();
    const row = { callId, ...content, attempt: 1, dueAt: iso(dueAt) };
    const { id, held } = await this.ownership.store(this.repo, row, tx);
    const stored: StoredWebhookJob = { id, callId, origin: originOf(content.url), attempt: 1, dueAt, content, held };
    if (!tx) this.release(stored);
    return stored;
  }

  /**
   * Sends the event of a recorded attempt again, with the body it sent, to the URL it went to: a new
   * delivery whose attempts are numbered from 1 again (up to 4, retried like any other) and name the
   * row it came from in `retryOf`. Refused (409) while the event is still being retried to that URL,
   * and for attempts recorded before bodies were kept.
   */
  retry(deliveryId: number): Promise<ScheduledRetry> {
    const next = this.retrying.then(() => this.scheduleRetry(deliveryId));
    this.retrying = next.catch(() => undefined);
    return next;
  }

  private async scheduleRetry(deliveryId: number): Promise<ScheduledRetry> {
    const row = await this.repo.deliveryWithBody(deliveryId);
    if (!row) throw notFound('Webhook delivery');
    const pending = await this.repo.pendingJob(row.callId, row.eventId, row.url);
    if (pending) {
      throw new GatewayError('CONFLICT', `This event is still being delivered to this URL: attempt ${pending.attempt} is due at ${pending.dueAt}`);
    }
    if (row.body === null) throw new GatewayError('CONFLICT', 'This attempt was recorded before the gateway kept what it sent, so it cannot be sent again');
    const job = await this.store(row.callId, { eventId: row.eventId, event: row.event, url: row.url, body: row.body, retryOf: row.id });
    this.log.info({ callId: row.callId, eventId: row.eventId, event: row.event, retryOf: row.id }, 'webhook delivery scheduled again');
    return { retryOf: row.id, callId: row.callId, eventId: row.eventId, event: row.event, url: row.url, attempt: job.attempt, dueAt: iso(job.dueAt) };
  }

  /** Schedules a job whose transaction has committed. While stopped, the next start reads it from the store. */
  release(job: StoredWebhookJob): void {
    if (!job.held) return;
    if (this.state === 'starting') this.releasedWhileStarting.push(job);
    if (this.state !== 'running') return;
    this.queue.add(this.withinBudget(job));
    this.pump();
  }

  /** The job with its content while the budget allows, else without (it is read from the store). */
  private withinBudget(job: QueuedJob): QueuedJob {
    if (!job.content || this.queue.has(job.id)) return { ...job, content: undefined };
    const size = job.content.body.length;
    if (this.cachedBytes + size > MAX_CACHED_BYTES) return { ...job, content: undefined };
    this.cachedBytes += size;
    return job;
  }

  /** Resumes the jobs stored in the database: due ones go out at once, the others at their time. */
  start(): Promise<void> {
    if (this.state === 'stopped') this.starting = this.load();
    return this.starting ?? Promise.resolve();
  }

  private async load(): Promise<void> {
    this.state = 'starting';
    this.abort = new AbortController();
    // Every attempt in flight listens to it: up to the queue's total.
    setMaxListeners(0, this.abort.signal);
    this.sender = new WebhookSender({ timeoutMs: this.timeoutMs, outbound: this.outbound });
    try {
      // A node of a cluster: the jobs it holds (stored while its scheduler was not running), then those no live node holds.
      const heldBy = this.ownership.holder() ?? undefined;
      for (let after = 0; ; ) {
        const page = await this.repo.jobsAfter(after, LOAD_PAGE, heldBy);
        for (const row of page) this.queue.add(queuedOf(row));
        if (page.length < LOAD_PAGE) break;
        after = page[page.length - 1]!.id;
      }
      await this.ownership.claimAll(this.addClaimed);
    } catch (err) {
      this.state = 'stopped';
      this.queue.clear();
      throw err;
    }
    if (this.queue.size > 0) this.log.info({ pending: this.queue.size }, 'resuming webhook jobs');
    for (const job of this.releasedWhileStarting.splice(0)) this.queue.add(this.withinBudget(job));
    this.state = 'running';
    this.ownership.startClaiming(this.addClaimed, () => this.pump());
    this.pump();
  }

  private readonly addClaimed = (row: ClaimedJobRow): void => this.queue.add(queuedOf(row));

  /** Several gateways: this node joined again under a new id (it was declared dead): its jobs are claimed anew. */
  async reclaim(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops scheduling and waits (at most about 2 s) for attempts in flight; later ones resume on the next start. */
  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    if (this.state !== 'running') return;
    this.state = 'stopping';
    await this.ownership.stopClaiming();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    const all = () => Promise.all(this.inFlight.values());
    if (this.inFlight.size > 0) {
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
    this.queue.clear();
    this.cachedBytes = 0;
    this.sender?.close();
    this.sender = undefined;
    this.starting = undefined;
    this.state = 'stopped';
  }

  attemptCounts(): Record<AttemptOutcome, number> {
    return { ...this.attempts };
  }

  /** The jobs not finished: due and waiting for a slot, scheduled for later (mostly retries), in flight. */
  queueDepth(): { due: number; scheduled: number; inFlight: number } {
    const { size, scheduled, inFlight } = this.queue;
    return { due: size - scheduled - inFlight, scheduled, inFlight };
  }

  /** A page of the log, newest first; `nextBefore` is the cursor of the next page, null on the last. */
  async listDeliveries(query: DeliveryQuery): Promise<{ deliveries: WebhookDelivery[]; events: WebhookEventDelivery[]; nextBefore: number | null }> {
    const rows = await this.repo.listDeliveries({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    // The page's events, each with all its attempts (those on other pages too) and the job still delivering it.
    const [all, pending] = await Promise.all([this.repo.attemptsOfEvents(page), this.repo.pendingJobsOf(page.map((r) => r.eventId))]);
    return {
      deliveries: page.map(toWebhookDelivery),
      events: groupByEvent(page, all, pending, this.maxAttempts),
      nextBefore: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null,
    };
  }

  /** Starts what may go out now and sets the timer for the next job that becomes due. */
  private pump(): void {
    if (this.state !== 'running') return;
    // A node whose lease may have run out makes no attempt: another node may be taking its jobs over (the poll pumps again).
    if (!this.ownership.mayAttempt()) return;
    for (const job of this.queue.take(this.now())) this.launch(job);
    const next = this.queue.nextDueAt();
    if (next !== undefined) this.wakeAt(next);
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.pump();
      },
      Math.min(Math.max(0, Math.ceil(at - this.now())), MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  private launch(job: QueuedJob): void {
    const done = this.attempt(job)
      .catch((err: unknown) => {
        // A bug, not a receiver's failure: the job leaves the queue (it stays stored, so the next
        // start tries it again), its lane goes on, and the process stays up.
        this.log.error({ err, callId: job.callId }, 'webhook attempt failed unexpectedly; the job waits for the next start');
        return null;
      })
      .then((next) => {
        this.queue.finish(job.id, next);
        if (next === null && job.content) this.cachedBytes -= job.content.body.length;
      })
      .finally(() => {
        this.inFlight.delete(job.id);
        this.pump();
      });
    this.inFlight.set(job.id, done);
  }

  private hold(job: QueuedJob): Next {
    return { attempt: job.attempt, dueAt: this.now() + Math.max(STORE_ERROR_BACKOFF_MS, this.retryDelaysMs[job.attempt - 1] ?? 0) };
  }

  private async attempt(queued: QueuedJob): Promise<Next> {
    let job: JobContent & { callId: string; attempt: number };
    if (queued.content) job = { ...queued.content, callId: queued.callId, attempt: queued.attempt };
    else {
      let row: WebhookJobRow | null;
      try {
        row = await this.repo.jobById(queued.id);
      } catch (err) {
        this.log.error({ err, callId: queued.callId }, 'could not read a webhook job; holding it back');
        return this.hold(queued);
      }
      if (!row) return null;
      job = row;
    }
    const log = this.log.child({ callId: job.callId, eventId: job.eventId, event: job.event, attempt: job.attempt });
    const startedMs = this.now();
    const started = performance.now();
    const outcome = await this.post(job, startedMs);
    if (outcome === 'interrupted') {
      log.info('webhook attempt interrupted by shutdown; it is sent again after the restart');
      return null;
    }
    this.attempts[outcome.outcome] += 1;
    const durationMs = Math.round(performance.now() - started);
    const last = job.attempt >= this.maxAttempts;
    const retryAt = outcome.ok || last ? null : this.now() + (this.retryDelaysMs[job.attempt - 1] ?? 0);
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
      id = await this.recorder.record({ delivery: { ...row, body: job.attempt === 1 ? job.body : null }, jobId: queued.id, next: retryAt === null ? null : { attempt: job.attempt + 1, dueAt: iso(retryAt) } });
    } catch (err) {
      log.error({ err }, 'could not record the webhook attempt; holding the job back');
      return this.hold(queued);
    }

    const fields = { host: hostOf(job.url), statusCode: outcome.statusCode, durationMs };
    if (outcome.ok) log.info(fields, 'webhook delivered');
    else if (retryAt !== null) log.warn({ ...fields, error: outcome.error, retryAt: iso(retryAt) }, 'webhook attempt failed; will retry');
    else log.warn({ ...fields, error: outcome.error }, `webhook attempt failed; dropped after ${job.attempt} attempts`);

    if (this.onDelivery) {
      try {
        this.onDelivery(toWebhookDelivery({ id, ...row }));
      } catch (err) {
        log.error({ err }, 'onDelivery listener failed');
      }
    }
    return retryAt === null ? null : { attempt: job.attempt + 1, dueAt: retryAt };
  }

  private post(job: JobContent, startedMs: number): Promise<PostOutcome> {
    let headers: WebhookHeaders;
    try {
      headers = webhookHeaders({ secret: this.secret(), id: job.eventId, timestamp: Math.floor(startedMs / 1000), body: job.body });
    } catch (err) {
      return Promise.resolve({ outcome: 'refused', ok: false, statusCode: null, error: `cannot sign: ${(err as Error).message}`, answer: null });
    }
    if (!this.sender) return Promise.resolve('interrupted');
    const secret = this.secret();
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
