import type { Logger } from '../log.js';
import type { WebhooksRepo } from '../store/webhooks-repo.js';

/**
 * How a node of a cluster shares the jobs (docs/cluster.md): it holds the jobs it stores, claims
 * those no live node holds every `pollMs`, and makes no attempt while its lease may have run out.
 */
export interface WebhookClaims {
  nodeId(): string;
  leaseHeld(): boolean;
  leaseMs: number;
  pollMs: number;
}

const CLAIM_PAGE = 1_000;

type Polling = 'idle' | 'polling' | 'stopped';

/** Claims, now and every `pollMs`, the jobs no live node holds, and hands them to the schedule. */
export class JobClaims {
  private state: Polling = 'idle';
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> = Promise.resolve();

  constructor(
    private readonly o: {
      repo: WebhooksRepo;
      claims: WebhookClaims;
      log: Logger;
      /** A claimed job, for the schedule (its body is read when it goes out). */
      add: (row: { id: number; callId: string; url: string; attempt: number; dueAt: string }) => void;
      /** After a poll: what was claimed may go out. */
      claimed: () => void;
    },
  ) {}

  /** Claims, page by page, the jobs no live node holds (a dead node's, or ones that waited behind another node's). */
  async claimAll(): Promise<number> {
    const { claims } = this.o;
    let claimed = 0;
    for (;;) {
      const page = await this.o.repo.claimJobs(claims.nodeId(), claims.leaseMs, CLAIM_PAGE);
      for (const row of page) this.o.add(row);
      claimed += page.length;
      if (page.length < CLAIM_PAGE) return claimed;
    }
  }

  start(): void {
    this.state = 'polling';
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.polling = (this.o.claims.leaseHeld() ? this.claimAll() : Promise.resolve(0))
        .then((claimed) => {
          if (claimed > 0) this.o.log.info({ claimed }, 'claimed webhook jobs no live node held');
        })
        .catch((err: unknown) => this.o.log.warn({ err }, 'could not claim webhook jobs'))
        .finally(() => {
          if (this.state !== 'polling') return;
          this.schedule();
          this.o.claimed();
        });
    }, this.o.claims.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
  }
}

