import type { Logger } from '../log.js';
import type { ClusterRepo, Db } from '../store/index.js';
import type { NewWebhookJob, WebhooksRepo } from '../store/webhooks-repo.js';
import type { AddClaimedJob, JobOwnership } from '../webhooks/index.js';
import type { ClusterNode } from './node.js';

const CLAIM_PAGE = 1_000;

type Polling = 'idle' | 'polling' | 'stopped';

/**
 * How a node of a cluster shares the webhook jobs (docs/cluster.md): it holds the jobs it stores,
 * claims, now and every `pollMs`, those no live node holds, and makes no attempt while its lease may
 * have run out.
 */
export class ClusterJobs implements JobOwnership {
  private state: Polling = 'idle';
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> = Promise.resolve();

  constructor(private readonly o: { repo: ClusterRepo; node: ClusterNode; log: Logger; pollMs: number }) {}

  holder(): string {
    return this.o.node.id;
  }

  store(repo: WebhooksRepo, job: NewWebhookJob, tx: Db | undefined): Promise<{ id: number; held: boolean }> {
    return repo.insertHeldJob(job, this.o.node.id, tx);
  }

  mayAttempt(): boolean {
    return this.o.node.leaseHeld();
  }

  /** Claims, page by page, the jobs no live node holds (a dead node's, or ones that waited behind another node's). */
  async claimAll(add: AddClaimedJob): Promise<number> {
    let claimed = 0;
    for (;;) {
      const page = await this.o.repo.claimJobs(this.o.node.id, this.o.node.leaseMs, CLAIM_PAGE);
      for (const row of page) add(row);
      claimed += page.length;
      if (page.length < CLAIM_PAGE) return claimed;
    }
  }

  startClaiming(add: AddClaimedJob, claimed: () => void): void {
    this.state = 'polling';
    this.schedule(add, claimed);
  }

  private schedule(add: AddClaimedJob, claimed: () => void): void {
    this.timer = setTimeout(() => {
      this.polling = (this.o.node.leaseHeld() ? this.claimAll(add) : Promise.resolve(0))
        .then((count) => {
          if (count > 0) this.o.log.info({ claimed: count }, 'claimed webhook jobs no live node held');
        })
        .catch((err: unknown) => this.o.log.warn({ err }, 'could not claim webhook jobs'))
        .finally(() => {
          if (this.state !== 'polling') return;
          this.schedule(add, claimed);
          claimed();
        });
    }, this.o.pollMs);
    this.timer.unref();
  }

  async stopClaiming(): Promise<void> {
    this.state = 'stopped';
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
  }
}
