export { Cluster, DEFAULT_CLUSTER_TIMINGS, type ClusterEvents, type ClusterTimings } from './cluster.js';
export { NODE_HEADER, NODE_ID_HEADER, type ForwardedRequest, type ForwardOutcome, type UpgradeOutcome } from './link.js';
export { PhoneRouting, FORWARD_TIMEOUT_MS } from './routing.js';
