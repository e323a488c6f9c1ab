import type { NewWebhookDelivery, WebhooksRepo } from '../store/webhooks-repo.js';

/** The outcome of one attempt as the store keeps it. */
export interface AttemptRecord {
  delivery: NewWebhookDelivery;
  jobId: number;
  /** The job's next attempt, or null when it is done. */
  next: { attempt: number; dueAt: string } | null;
}

interface Waiting {
  record: AttemptRecord;
  resolve: (deliveryId: number) => void;
  reject: (err: unknown) => void;
}

/**
 * Writes each attempt's delivery row together with the removal or the rescheduling of its job, in
 * one transaction. Attempts that end in the same turn of the event loop share the transaction: a
 * fast receiver costs the store one commit per batch, not one per webhook.
 */
export class AttemptRecorder {
  private batch: Waiting[] = [];

  /** `claimant`: several gateways, where a job is changed only while this node still holds it. */
  constructor(
    private readonly repo: WebhooksRepo,
    private readonly claimant: () => string | undefined,
  ) {}

  /** Resolves with the delivery row's id once it is stored; rejects when the batch could not be. */
  record(record: AttemptRecord): Promise<number> {
    return new Promise((resolve, reject) => {
      this.batch.push({ record, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    try {
      const ids = await this.repo.transaction(async (repo) => {
        const stored: number[] = [];
        for (const { record } of batch) {
          stored.push(await repo.insertDelivery(record.delivery));
          const claimant = this.claimant();
          if (record.next) await repo.rescheduleJob(record.jobId, record.next, claimant);
          else await repo.deleteJob(record.jobId, claimant);
        }
        return stored;
      });
      batch.forEach((w, i) => w.resolve(ids[i]!));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
