import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/**
 * prom-client's default metrics: CPU, memory, handles, garbage collection and the event-loop delay
 * (`nodejs_eventloop_lag_*`), under their usual names, which dashboards for Node know. They describe
 * the process, not a gateway, and prom-client cannot stop their collectors (an event-loop delay
 * monitor, a GC observer), so there is one set per process, made at the first scrape and shared by
 * every gateway the process runs, instead of one more set for each gateway a test starts.
 */
export function processMetrics(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
