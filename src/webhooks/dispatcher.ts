import { LIMITS } from '../limits.js';
import type { Logger } from '../log.js';
import { OutboundPolicy } from '../outbound/index.js';
import type { Db } from '../store/database.js';
import type { ClaimedJobRow } from '../store/cluster-repo.js';
import { WebhooksRepo, type DeliveryQuery } from '../store/webhooks-repo.js';
import { WebhookAttempts } from './attempt.js';
import { iso, type StoredWebhookJob, type WebhookBody, type WebhookDelivery, type WebhookJobInput } from './delivery.js';
import { deliveryPage, type DeliveryPage } from './log-queries.js';
import { DeliveryQueue, type DeliveryQueueLimits, type JobContent, type QueuedJob } from './queue.js';
import { ONE_GATEWAY, type JobOwnership } from './ownership.js';
import { AttemptRecorder } from './recorder.js';
import { Redelivery, type ScheduledRetry } from './redelivery.js';
import type { AttemptOutcome } from './sender.js';

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

type Lifecycle = 'stopped' | 'starting' | 'running' | 'stopping';

const STOP_GRACE_MS = 2_000;
const LOAD_PAGE = 1_000;
/** Bodies of queued jobs kept in memory at most; past it, a job's row is read when it goes out. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
const MAX_TIMER_MS = 2 ** 31 - 1;

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

/**
 * Delivers call events to webhook URLs. Jobs live in the database (enqueued in the caller's
 * transaction), so what is due after a restart is what the table holds. In memory the scheduler
 * keeps every job without its body (DeliveryQueue): one lane per receiver, so a receiver that hangs
 * or fails holds only its own slots, and no attempt rescans the table. The body is read by id when
 * the attempt starts. What one attempt does is `WebhookAttempts`' (attempt.ts); sending a recorded
 * attempt again is `Redelivery`'s (redelivery.ts); the log's pages are `deliveryPage` (log-queries.ts).
 */
export class WebhookDispatcher {
  private readonly repo: WebhooksRepo;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly queue: DeliveryQueue;
  private readonly attempts: WebhookAttempts;
  private readonly redelivery: Redelivery;
  /** Bytes of the bodies the queue holds (see MAX_CACHED_BYTES). */
  private cachedBytes = 0;

  private state: Lifecycle = 'stopped';
  private starting: Promise<void> | undefined;
  /** Jobs released while the stored ones are being loaded. */
  private releasedWhileStarting: QueuedJob[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly ownership: JobOwnership;
  /** What other domains add to a call's webhook bodies, in the order they were added. */
  private readonly enrichers: BodyFields[] = [];

  constructor(options: WebhookDispatcherOptions) {
    if (options.retryDelaysMs.length === 0) throw new Error('retryDelaysMs must list at least one delay');
    this.repo = new WebhooksRepo(options.store.db);
    this.log = options.log.child({ component: 'webhooks' });
    this.now = options.now ?? Date.now;
    this.queue = new DeliveryQueue({ perReceiver: LIMITS.webhookAttemptsPerReceiver, total: LIMITS.webhookAttemptsInFlight, ...options.concurrency });
    const ownership = (this.ownership = options.ownership ?? ONE_GATEWAY);
    this.attempts = new WebhookAttempts({
      repo: this.repo,
      recorder: new AttemptRecorder(this.repo, () => ownership.holder() ?? undefined),
      log: this.log,
      secret: options.secret,
      retryDelaysMs: [...options.retryDelaysMs],
      timeoutMs: options.timeoutMs ?? LIMITS.webhookTimeoutMs,
      outbound: options.outbound ?? new OutboundPolicy(),
      now: this.now,
      onDelivery: options.onDelivery,
    });
    this.redelivery = new Redelivery(this.repo, this.log, (callId, content) => this.store(callId, content));
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

  /** Sends the event of a recorded attempt again as a new delivery (redelivery.ts says when it is refused). */
  retry(deliveryId: number): Promise<ScheduledRetry> {
    return this.redelivery.retry(deliveryId);
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
    this.attempts.open();
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
        this.attempts.interrupt();
        await all();
      }
    }
    this.queue.clear();
    this.cachedBytes = 0;
    this.attempts.close();
    this.starting = undefined;
    this.state = 'stopped';
  }

  attemptCounts(): Record<AttemptOutcome, number> {
    return this.attempts.counts();
  }

  /** The jobs not finished: due and waiting for a slot, scheduled for later (mostly retries), in flight. */
  queueDepth(): { due: number; scheduled: number; inFlight: number } {
    const { size, scheduled, inFlight } = this.queue;
    return { due: size - scheduled - inFlight, scheduled, inFlight };
  }

  /** A page of the log, newest first; `nextBefore` is the cursor of the next page, null on the last. */
  listDeliveries(query: DeliveryQuery): Promise<DeliveryPage> {
    return deliveryPage(this.repo, query, this.attempts.maxAttempts);
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
    const done = this.attempts.run(job)
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
}
