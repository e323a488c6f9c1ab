import type { ClaimedJobRow, Db } from '../store/index.js';
import type { NewWebhookJob, WebhooksRepo } from '../store/webhooks-repo.js';

/** Where a claimed job goes: the schedule (its body is read when it goes out). */
export type AddClaimedJob = (row: ClaimedJobRow) => void;

/**
 * Which webhook jobs this gateway makes the attempts of (docs/cluster.md). One gateway holds every
 * job (`ONE_GATEWAY`); a node of a cluster holds the jobs it stores and those it claims, and makes
 * no attempt while its lease may have run out (cluster/jobs.ts).
 */
export interface JobOwnership {
  /** The node whose jobs these are; null where one gateway holds them all. */
  holder(): string | null;
  /** Stores attempt 1 of a job; `held` false: it waits, unclaimed, for another node's earlier first attempt of its call. */
  store(repo: WebhooksRepo, job: NewWebhookJob, tx: Db | undefined): Promise<{ id: number; held: boolean }>;
  /** Whether attempts may be made now. */
  mayAttempt(): boolean;
  /** Claims now, page by page, the jobs no live node holds; how many. */
  claimAll(add: AddClaimedJob): Promise<number>;
  /** From now on, claims again on its own (`claimed` after each poll: what was claimed may go out). */
  startClaiming(add: AddClaimedJob, claimed: () => void): void;
  stopClaiming(): Promise<void>;
}

/** One gateway: every job is its own, as soon as it is stored. */
export const ONE_GATEWAY: JobOwnership = {
  holder: () => null,
  store: async (repo, job, tx) => ({ id: await repo.insertJob(job, tx), held: true }),
  mayAttempt: () => true,
  claimAll: () => Promise.resolve(0),
  startClaiming: () => undefined,
  stopClaiming: () => Promise.resolve(),
};
