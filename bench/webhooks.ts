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
  gatewayPid: number;
  events: number;
  delivered: number;
  duplicates: number;
  /** Burst sent -> every event acknowledged to the phones (the receiver held its answers meanwhile). */
  ingestMs: number;
  /** Receiver released -> last webhook answered: the backlog drained. */
  drainMs: number;
  deliveriesPerSecond: number;
  restBaseline: Percentiles & { count: number };
  /** While the phones' events came in. */
  restIngest: Percentiles & { count: number };
  /** While the backlog of webhooks drained. */
  restDrain: Percentiles & { count: number };
  /** REST requests that failed (any phase). */
  restErrors: string[];
  /** Over the drain. */
  gatewayCpuPct: number;
  gatewayRssMb: number;
  /** Over the drain. */
  loopDelay: LoopDelay;
  loadAverage: number;
}

interface RestSample {
  /** Date.now() when the request was sent. */
  at: number;
  ms: number;
}

/** GET /v1/calls?limit=50 every 50 ms (open loop) until stopped; latencies in ms, and the failures. */
function probeRest(baseUrl: string): { stop(): Promise<{ samples: RestSample[]; errors: string[] }> } {
  const samples: RestSample[] = [];
  const errors: string[] = [];
  const pending = new Set<Promise<void>>();
  const fire = (): void => {
    const started = performance.now();
    const at = Date.now();
    const p = fetch(`${baseUrl}/v1/calls?limit=50`, { headers: { authorization: `Bearer ${BENCH_API_KEY}` } })
      .then(async (res) => {
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`GET /v1/calls: HTTP ${res.status}`);
        samples.push({ at, ms: performance.now() - started });
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
      return { samples, errors };
    },
  };
}

function percentiles(samples: RestSample[]): Percentiles & { count: number } {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
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

/** Generous: the receiver holds the first attempts while all the events come in. */
const HELD_ATTEMPT_TIMEOUT_MS = 300_000;

/**
 * A gateway whose default webhook is a receiver answering in `answerMs`. REST latency with no
 * backlog (after a small warm-up burst, so both read a call log), then a burst of calls x
 * eventsPerCall events from raw phones while the receiver holds its answers, so a backlog of that
 * many webhooks builds up; then the receiver is released and the backlog drains while REST is
 * probed. Ingest and drain are measured apart: the first is the phones' load, the second the
 * webhooks'.
 */
export async function runWebhookBench(o: WebhookBenchOptions): Promise<WebhookBenchResult> {
  const dataDir = path.join(o.workDir, 'data-webhooks');
  mkdirSync(dataDir, { recursive: true });
  const load = spawnChild<WebhookLoadMessage>('webhooks-load-process.ts', { ...baseEnv(), BENCH_ANSWER_MS: String(o.answerMs) });
  let target: Child<TargetMessage> | undefined;
  try {
    const { url: receiverUrl } = await nextOf(load, 'receiver', 30_000);
    target = spawnChild<TargetMessage>(
      'gateway-process.ts',
      {
        ...baseEnv(),
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        HTTP_GATEWAY_API_KEY: BENCH_API_KEY,
        WEBHOOK_URL: receiverUrl,
        BENCH_WEBHOOK_TIMEOUT_MS: String(HELD_ATTEMPT_TIMEOUT_MS),
      },
      o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [],
    );
    const gateway = target;
    const ready = await gateway.next((m): m is Extract<TargetMessage, { type: 'ready' }> => m.type === 'ready', 30_000, 'ready message');
    load.send({ type: 'phones', targetUrl: ready.url, apiKey: BENCH_API_KEY, phones: o.phones });
    await nextOf(load, 'phones-ready', 120_000);
    o.log(`  webhooks: ${o.phones} phones connected`);

    load.send({ type: 'burst', calls: Math.min(50, o.calls), eventsPerCall: 2, hold: false });
    await nextOf(load, 'delivered', 60_000);
    await sleep(1000);

    o.log(`  webhooks: REST latency with no backlog, ${o.baselineSeconds} s`);
    const baselineProbe = probeRest(ready.url);
    await sleep(o.baselineSeconds * 1000);
    const baseline = await baselineProbe.stop();

    const events = o.calls * o.eventsPerCall;
    o.log(`  webhooks: ${o.calls} calls x ${o.eventsPerCall} events come in, the receiver holding its answers`);
    const ingestProbe = probeRest(ready.url);
    const acked = nextOf(load, 'burst-acked', 600_000);
    load.send({ type: 'burst', calls: o.calls, eventsPerCall: o.eventsPerCall, hold: true });
    const sent = await nextOf(load, 'burst-sent', 30_000);
    const ackedAt = (await acked).at;
    const ingest = await ingestProbe.stop();

    o.log(`  webhooks: a backlog of ${events} webhooks drains to a receiver answering in ${o.answerMs} ms`);
    gateway.send({ type: 'loop-delay-reset' });
    const cpu0 = cpuMs(gateway.pid);
    const wall0 = performance.now();
    const drainProbe = probeRest(ready.url);
    const delivered = nextOf(load, 'delivered', 600_000);
    const releasedAt = Date.now();
    load.send({ type: 'release' });
    const done = await delivered;
    const wall = performance.now() - wall0;
    const gatewayCpuPct = ((cpuMs(gateway.pid) - cpu0) / wall) * 100;
    const drain = await drainProbe.stop();
    const loopDelay = gateway.next((m): m is Extract<TargetMessage, { type: 'loop-delay' }> => m.type === 'loop-delay', 10_000, 'loop delay');
    gateway.send({ type: 'loop-delay-read' });
    const drainMs = done.lastAt - releasedAt;
    return {
      gatewayPid: gateway.pid,
      options: { phones: o.phones, calls: o.calls, eventsPerCall: o.eventsPerCall, answerMs: o.answerMs, baselineSeconds: o.baselineSeconds },
      events,
      delivered: done.count,
      duplicates: done.duplicates,
      ingestMs: ackedAt - sent.at,
      drainMs,
      deliveriesPerSecond: done.count / (drainMs / 1000),
      restBaseline: percentiles(baseline.samples),
      restIngest: percentiles(ingest.samples),
      restDrain: percentiles(drain.samples),
      restErrors: [...baseline.errors, ...ingest.errors, ...drain.errors],
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
  const rest = (label: string, p: Percentiles & { count: number }) => [
    `REST GET /v1/calls ${label}: p50 / p99 / max (ms), requests`,
    `${ms(p.p50)} / ${ms(p.p99)} / ${ms(p.max)}, ${p.count}`,
  ];
  return [
    ['backlog (calls x events)', `${r.events} (${r.options.calls} x ${r.options.eventsPerCall})`],
    ['receiver answer time (ms)', String(r.options.answerMs)],
    ['delivered / duplicates', `${r.delivered} / ${r.duplicates}`],
    ['backlog drained in (s)', (r.drainMs / 1000).toFixed(1)],
    ['**deliveries per second**', `**${r.deliveriesPerSecond.toFixed(0)}**`],
    ['gateway CPU while draining (one core = 100 %)', `${r.gatewayCpuPct.toFixed(0)} %`],
    ['gateway event-loop delay while draining, p99 / max (ms)', `${ms(r.loopDelay.p99)} / ${ms(r.loopDelay.max)}`],
    rest('with no backlog (baseline)', r.restBaseline),
    rest('while the backlog drains', r.restDrain),
    ['**REST p99 while draining / baseline**', `**${ratio(r.restDrain.p99, r.restBaseline.p99)}**`],
    ['events in from the phones in (s)', (r.ingestMs / 1000).toFixed(1)],
    rest('while the events came in', r.restIngest),
    ['REST p99 while the events came in / baseline', ratio(r.restIngest.p99, r.restBaseline.p99)],
    ['REST requests that failed', String(r.restErrors.length)],
    ['gateway RSS after (MB)', r.gatewayRssMb.toFixed(0)],
    ['machine load average (1 min)', r.loadAverage.toFixed(1)],
  ];
}

export function webhookTable(r: WebhookBenchResult): string {
  return markdownTable(['', 'value'], webhookRows(r));
}
