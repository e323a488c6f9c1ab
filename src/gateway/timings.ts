import { DEFAULT_CLUSTER_TIMINGS } from '../cluster/index.js';
import { LIMITS } from '../limits.js';

/** Timings the contract fixes; tests shorten them. */
export interface GatewayTimings {
  /** Phone sockets (the spec's 20 s) and the console's live channel. */
  pingIntervalMs: number;
  /** Agent and media sockets: a dead one is found within this plus `pongTimeoutMs`. */
  audioPingIntervalMs: number;
  /** How long any pinged socket may take to answer before it counts as dead. */
  pongTimeoutMs: number;
  commandTimeoutMs: number;
  /** How long a live call waits for its phone to reconnect before it is ended. */
  phoneGraceMs: number;
  /** Wait after a phone's hello before ending calls it no longer has (its outbox comes first). */
  reconcileDelayMs: number;
  webhookTimeoutMs: number;
  /** The spec's "about 1 s" before an incoming call is answered into the incoming stream. */
  incomingAutoStreamDelayMs: number;
  /** How long the assistant's model may take to confirm its session and to begin its first answer. */
  assistantResponseTimeoutMs: number;
  /** Several gateways (docs/cluster.md): how often a node renews its lease, */
  clusterHeartbeatMs: number;
  /** how long after its last heartbeat a node is dead (15 s), */
  clusterLeaseMs: number;
  /** how often it claims the webhook jobs no live node holds, */
  clusterClaimPollMs: number;
  /** and how often it reads the settings again whatever it heard (changes are heard at once). */
  clusterSettingsRefreshMs: number;
}

export const DEFAULT_TIMINGS: GatewayTimings = {
  pingIntervalMs: LIMITS.phonePingIntervalMs,
  audioPingIntervalMs: LIMITS.audioPingIntervalMs,
  pongTimeoutMs: LIMITS.pongTimeoutMs,
  commandTimeoutMs: LIMITS.commandAckTimeoutMs,
  phoneGraceMs: 60_000,
  reconcileDelayMs: 1_000,
  webhookTimeoutMs: LIMITS.webhookTimeoutMs,
  incomingAutoStreamDelayMs: LIMITS.incomingAutoStreamDelayMs,
  assistantResponseTimeoutMs: 10_000,
  clusterHeartbeatMs: DEFAULT_CLUSTER_TIMINGS.heartbeatMs,
  clusterLeaseMs: DEFAULT_CLUSTER_TIMINGS.leaseMs,
  clusterClaimPollMs: DEFAULT_CLUSTER_TIMINGS.claimPollMs,
  clusterSettingsRefreshMs: DEFAULT_CLUSTER_TIMINGS.settingsRefreshMs,
};
