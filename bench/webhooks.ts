import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuMs, rssMb, spawnChild, type Child } from './proc.js';
import { BENCH_API_KEY, type LoopDelay, type Percentiles, type TargetMessage, type WebhookLoadMessage } from './protocol.js';
import { markdownTable } from './report.js';
import { baseEnv } from './scenario.js';

export interface WebhookBenchOptions {
  phones: number;
  calls: number;
  eventsPerCall: number;
  /** How long the receiver takes to answer each webhook. */
  answerMs: number;
  /** Seconds of REST probing with no backlog, the baseline. */
  baselineSeconds: number;
  workDir: string;
  /** Directory for a CPU profile of the gateway, or null. */
  cpuProfDir: string | null;
  log: (text: string) => void;
}

export interface WebhookBenchResult {
  options: Omit<WebhookBenchOptions, 'workDir' | 'log' | 'cpuProfDir'>;
  events: number;
  delivered: number;
  duplicates: number;
  /** Burst sent -> every event acknowledged to the phones. */
  ingestMs: number;
  /** Burst sent -> last webhook answered. */
  drainMs: number;
  deliveriesPerSecond: number;
  restBaseline: Percentiles & { count: number };
  restBurst: Percentiles & { count: number };
  /** REST requests that failed (either phase). */
  restErrors: string[];
  gatewayCpuPct: number;
  gatewayRssMb: number;
  loopDelay: LoopDelay;
  loadAverage: number;
}

/** GET /v1/calls?limit=50 every 50 ms (open loop) until stopped; latencies in ms, and the failures. */
function probeRest(baseUrl: string): { stop(): Promise<{ latencies: number[]; errors: string[] }> } {
  const latencies: number[] = [];
  const errors: string[] = [];
  const pending = new Set<Promise<void>>();
  const fire = (): void => {
    const started = performance.now();
    const p = fetch(`${baseUrl}/v1/calls?limit=50`, { headers: { authorization: `Bearer ${BENCH_API_KEY}` } })
      .then(async (res) => {
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`GET /v1/calls: HTTP ${res.status}`);
        latencies.push(performance.now() - started);
      })
      .catch((err: unknown) => {
        errors.push(err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}` : String(err));
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  };
  const timer = setInterval(fire, 50);
  fire();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return { latencies, errors };
    },
  };
}

function percentiles(values: number[]): Percentiles & { count: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN, count: sorted.length };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function nextOf<T extends WebhookLoadMessage['type']>(load: Child<WebhookLoadMessage>, type: T, timeoutMs: number): Promise<Extract<WebhookLoadMessage, { type: T }>> {
  return load
    .next((m): m is Extract<WebhookLoadMessage, { type: T | 'error' }> => m.type === type || m.type === 'error', timeoutMs, type)
    .then((m) => {
      if (m.type === 'error') throw new Error(`webhook load failed: ${(m as { message: string }).message}`);
      return m as Extract<WebhookLoadMessage, { type: T }>;
    });
}

/**
 * A gateway whose default webhook is a receiver answering in `answerMs`: REST latency with no
 * backlog (after a small warm-up burst), then a burst of calls x eventsPerCall events from raw
 * phones while REST is probed, until every webhook has been answered.
 */
export async function runWebhookBench(o: WebhookBenchOptions): Promise<WebhookBenchResult> {
  const dataDir = path.join(o.workDir, 'data-webhooks');
  mkdirSync(dataDir, { recursive: true });
  const load = spawnChild<WebhookLoadMessage>('webhooks-load-process.ts', { ...baseEnv(), BENCH_ANSWER_MS: String(o.answerMs) });
  let target: Child<TargetMessage> | undefined;
  try {
    const { url: receiverUrl } = await nextOf(load, 'receiver', 30_000);
    target = spawnChild<TargetMessage>('gateway-process.ts', {
      ...baseEnv(),
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      HTTP_GATEWAY_API_KEY: BENCH_API_KEY,
      WEBHOOK_URL: receiverUrl,
    }, o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : []);
    const gateway = target;
    const ready = await gateway.next((m): m is Extract<TargetMessage, { type: 'ready' }> => m.type === 'ready', 30_000, 'ready message');
    load.send({ type: 'phones', targetUrl: ready.url, apiKey: BENCH_API_KEY, phones: o.phones });
    await nextOf(load, 'phones-ready', 120_000);
    o.log(`  webhooks: ${o.phones} phones connected`);

    // Warm-up: a few calls' webhooks, so the baseline reads a call log like the burst's.
    const warmCalls = Math.min(50, o.calls);
    load.send({ type: 'burst', calls: warmCalls, eventsPerCall: 2 });
    await nextOf(load, 'delivered', 60_000);
    await sleep(1000);

    o.log(`  webhooks: REST latency with no backlog, ${o.baselineSeconds} s`);
    const baselineProbe = probeRest(ready.url);
    await sleep(o.baselineSeconds * 1000);
    const baseline = await baselineProbe.stop();
    const restBaseline = percentiles(baseline.latencies);

    const events = o.calls * o.eventsPerCall;
    o.log(`  webhooks: burst of ${o.calls} calls x ${o.eventsPerCall} events = ${events} webhooks, receiver answering in ${o.answerMs} ms`);
    gateway.send({ type: 'loop-delay-reset' });
    const cpu0 = cpuMs(gateway.pid);
    const wall0 = performance.now();
    const burstProbe = probeRest(ready.url);
    const acked = nextOf(load, 'burst-acked', 300_000);
    const delivered = nextOf(load, 'delivered', 600_000);
    load.send({ type: 'burst', calls: o.calls, eventsPerCall: o.eventsPerCall });
    const sent = await nextOf(load, 'burst-sent', 30_000);
    const ackedAt = (await acked).at;
    const done = await delivered;
    const wall = performance.now() - wall0;
    const gatewayCpuPct = ((cpuMs(gateway.pid) - cpu0) / wall) * 100;
    const burstRest = await burstProbe.stop();
    const restBurst = percentiles(burstRest.latencies);
    const loopDelay = gateway.next((m): m is Extract<TargetMessage, { type: 'loop-delay' }> => m.type === 'loop-delay', 10_000, 'loop delay');
    gateway.send({ type: 'loop-delay-read' });
    const drainMs = done.lastAt - sent.at;
    return {
      options: { phones: o.phones, calls: o.calls, eventsPerCall: o.eventsPerCall, answerMs: o.answerMs, baselineSeconds: o.baselineSeconds },
      events,
      delivered: done.count,
      duplicates: done.duplicates,
      ingestMs: ackedAt - sent.at,
      drainMs,
      deliveriesPerSecond: done.count / (drainMs / 1000),
      restBaseline,
      restBurst,
      restErrors: [...baseline.errors, ...burstRest.errors],
      gatewayCpuPct,
      gatewayRssMb: rssMb(gateway.pid),
      loopDelay: (await loopDelay).delay,
      loadAverage: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    await Promise.all([load.stop(5000), target?.stop(15_000)]);
  }
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');

export function webhookRows(r: WebhookBenchResult): string[][] {
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(1)}x` : '-');
  return [
    ['webhooks in the burst (calls x events)', `${r.events} (${r.options.calls} x ${r.options.eventsPerCall})`],
    ['delivered / duplicates', `${r.delivered} / ${r.duplicates}`],
    ['receiver answer time (ms)', String(r.options.answerMs)],
    ['events acknowledged to the phones after (s)', (r.ingestMs / 1000).toFixed(1)],
    ['last webhook answered after (s)', (r.drainMs / 1000).toFixed(1)],
    ['**deliveries per second**', `**${r.deliveriesPerSecond.toFixed(0)}**`],
    ['gateway CPU during the burst (one core = 100 %)', `${r.gatewayCpuPct.toFixed(0)} %`],
    ['gateway event-loop delay p99 / max (ms)', `${ms(r.loopDelay.p99)} / ${ms(r.loopDelay.max)}`],
    ['gateway RSS after (MB)', r.gatewayRssMb.toFixed(0)],
    ['REST GET /v1/calls p50, no backlog / burst (ms)', `${ms(r.restBaseline.p50)} / ${ms(r.restBurst.p50)}`],
    ['REST GET /v1/calls p99, no backlog / burst (ms)', `${ms(r.restBaseline.p99)} / ${ms(r.restBurst.p99)}`],
    ['REST GET /v1/calls max, no backlog / burst (ms)', `${ms(r.restBaseline.max)} / ${ms(r.restBurst.max)}`],
    ['**REST p99 burst / no backlog**', `**${ratio(r.restBurst.p99, r.restBaseline.p99)}**`],
    ['REST requests measured, no backlog / burst', `${r.restBaseline.count} / ${r.restBurst.count}`],
    ['REST requests that failed', String(r.restErrors.length)],
    ['machine load average (1 min)', r.loadAverage.toFixed(1)],
  ];
}

export function webhookTable(r: WebhookBenchResult): string {
  return markdownTable(['', 'value'], webhookRows(r));
}
