import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { PhoneSimulator } from '../src/simulator/index.js';
import { spawnChild } from './proc.js';
import { BENCH_API_KEY, type Format, type Percentiles, type TargetMessage } from './protocol.js';
import { lost, markdownTable, MAX_N_LATENCY_P99_MS, textTable } from './report.js';
import { baseEnv, runScenario, type ScenarioResult } from './scenario.js';
import { Samples } from './tracks.js';
import { api } from './util.js';

/*
 * `npm run bench -- --nodes N` (issues 14 and 22): several gateway processes on one PostgreSQL
 * database against one, on this machine. Three measurements:
 *  - routing: a command for a phone sent to the node that holds it and to another node, which
 *    passes it on (what routing adds);
 *  - scale-out: the same N calls on one gateway and on N gateways, taking turns, each gateway's CPU
 *    per call and the pair's total against one's (efficiency = one gateway's CPU / all of theirs).
 *    On two cores shared with the load, "the largest N grows" cannot show; this can: if the pair
 *    spends no more CPU for the same calls, N gateways on N cores carry N times one's calls;
 *  - with --find-max, the largest N of calls with zero loss and p99 under 20 ms, with one gateway
 *    and with N, the phones spread over the gateways as a balancer would.
 */

export interface ClusterBenchOptions {
  nodes: number;
  /** A PostgreSQL role that may create databases (VG_POSTGRES_URL). */
  postgresUrl: string;
  format: Format;
  start: number;
  step: number;
  maxCalls: number;
  seconds: number;
  commands: number;
  /** Calls of the scale-out runs, and how many times each of the two runs is repeated. */
  scaleCalls: number;
  scaleRepeats: number;
  /** Also step N up (slow; on two cores it shows little). */
  findMax: boolean;
  workDir: string;
  wavPath: string;
  log: (text: string) => void;
}

export interface RoutingResult {
  commands: number;
  /** Sent to the node that holds the phone. */
  direct: Percentiles;
  /** Sent to another node, which passes it on. */
  routed: Percentiles;
}

export interface MaxRun {
  nodes: number;
  best: number;
  rows: string[][];
}

/** One scale-out run: the gateways' CPU (% of one core) over the window. */
export interface ScaleRun {
  nodes: number;
  calls: number;
  /** Each gateway's, in the order the phones were spread over them. */
  cpuPcts: number[];
  lost: number;
  latencyP99: number;
  load: number;
}

export interface ScaleOutResult {
  calls: number;
  runs: ScaleRun[];
  /** Medians over the repeats: CPU % of one core per call. */
  onePerCall: number;
  pairPerCall: number;
  /** One gateway's CPU / the pair's for the same calls (1: the second node costs nothing extra). */
  efficiency: number;
}

export interface ClusterBenchResult {
  routing: RoutingResult;
  scaleOut: ScaleOutResult;
  runs: MaxRun[];
}

/** A database of its own for each run, dropped after it. */
async function withDatabase<T>(postgresUrl: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `vg_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  try {
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin(`drop database if exists ${name} with (force)`);
  }
}

/** Waits (5 s at most) until the gateway has the call active: commands such as dtmf need it. */
async function untilActive(url: string, callId: string): Promise<void> {
  let state = '';
  for (let tries = 0; tries < 100; tries++) {
    state = ((await api(url, BENCH_API_KEY, 'GET', `/v1/calls/${callId}`))['call'] as { state: string }).state;
    if (state === 'active') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the routing bench's call is ${state}, not active`);
}

async function measureRouting(o: ClusterBenchOptions): Promise<RoutingResult> {
  return withDatabase(o.postgresUrl, async (databaseUrl) => {
    const secretKey = randomBytes(32).toString('base64');
    const gateways = [0, 1].map((i) =>
      spawnChild<TargetMessage>('gateway-process.ts', {
        ...baseEnv(),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        HTTP_GATEWAY_API_KEY: BENCH_API_KEY,
        DATA_DIR: path.join(o.workDir, `routing-${i}`),
        DATABASE_URL: databaseUrl,
        SECRET_KEY: secretKey,
      }),
    );
    let phone: PhoneSimulator | undefined;
    try {
      const [holder, other] = await Promise.all(gateways.map((g) => g.next((m): m is Extract<TargetMessage, { type: 'ready' }> => m.type === 'ready', 30_000, 'ready message')));
      const holderUrl = holder!.url;
      phone = new PhoneSimulator({ gatewayUrl: holderUrl, name: 'routing bench', audio: { kind: 'none' }, dial: { outcome: 'answer', ringMs: 20 } });
      const pairing = await api(holderUrl, BENCH_API_KEY, 'POST', '/v1/pairing', { publicUrl: holderUrl });
      await phone.pair(String(pairing['code']));
      await phone.connect();
      const placed = await api(holderUrl, BENCH_API_KEY, 'POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' });
      const callId = String((placed['call'] as { id: string }).id);
      await untilActive(holderUrl, callId);
      const samples = { direct: new Samples(), routed: new Samples() };
      const command = async (url: string) => {
        const began = performance.now();
        await api(url, BENCH_API_KEY, 'POST', `/v1/calls/${callId}/dtmf`, { digits: '1' });
        return performance.now() - began;
      };
      // Warm both paths (connections, the JIT), then alternate so both see the same machine.
      for (let i = 0; i < 50; i++) await command(i % 2 === 0 ? holderUrl : other!.url);
      for (let i = 0; i < o.commands; i++) {
        samples.direct.push(await command(holderUrl));
        samples.routed.push(await command(other!.url));
      }
      return { commands: o.commands, direct: samples.direct.percentiles(), routed: samples.routed.percentiles() };
    } finally {
      await phone?.stop();
      await Promise.all(gateways.map((g) => g.stop(10_000)));
    }
  });
}

const passes = (r: ScenarioResult): boolean => r.phones.callsLive === r.phones.callsRequested && lost(r) === 0 && r.phones.latencyMs.p99 < MAX_N_LATENCY_P99_MS;

async function measure(o: ClusterBenchOptions, nodes: number, n: number): Promise<{ ok: boolean; row: string[] }> {
  o.log(`${nodes} gateway${nodes > 1 ? 's' : ''} ${o.format}: ${n} calls for ${o.seconds} s`);
  const secretKey = randomBytes(32).toString('base64');
  const r = await withDatabase(o.postgresUrl, (databaseUrl) =>
    runScenario({ mode: 'gateway', format: o.format, calls: n, seconds: o.seconds, workDir: o.workDir, wavPath: o.wavPath, cpuProfDir: null, log: o.log, cluster: { nodes, databaseUrl, secretKey } }),
  );
  const ok = passes(r);
  const p = r.phones;
  const row = [String(nodes), String(n), String(p.callsLive), String(lost(r)), p.latencyMs.p99.toFixed(2), p.jitterMs.p99.toFixed(2), `${r.targetCpuPct.toFixed(0)} %`, `${r.phonesCpuPct.toFixed(0)} %`, r.loadAverage.toFixed(1), ok ? 'pass' : 'fail'];
  o.log(`  -> ${row.join('  ')}`);
  if (!ok) for (const line of [...p.phonesErrors, ...r.targetLogTail.filter((l) => !l.includes('No console account yet'))]) o.log(`     ${line}`);
  return { ok, row };
}

/**
 * Steps N up for one gateway and for `nodes` gateways in turn (one, then the other, at each N), so
 * that both meet the machine in the same state; each stops at its first failure.
 */
async function findMax(o: ClusterBenchOptions): Promise<MaxRun[]> {
  const runs: MaxRun[] = [1, o.nodes].map((nodes) => ({ nodes, best: 0, rows: [] }));
  const going = new Set(runs);
  for (let n = o.start; n <= o.maxCalls && going.size > 0; n += o.step) {
    for (const run of runs) {
      if (!going.has(run)) continue;
      const { ok, row } = await measure(o, run.nodes, n);
      run.rows.push(row);
      if (ok) run.best = n;
      else going.delete(run);
    }
  }
  return runs;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One gateway, then `nodes`, at the same N, `scaleRepeats` times, so both meet the machine alike. */
async function measureScaleOut(o: ClusterBenchOptions): Promise<ScaleOutResult> {
  const runs: ScaleRun[] = [];
  for (let i = 0; i < o.scaleRepeats; i++) {
    for (const nodes of [1, o.nodes]) {
      o.log(`scale-out ${i + 1}/${o.scaleRepeats}: ${nodes} gateway${nodes > 1 ? 's' : ''} ${o.format}, ${o.scaleCalls} calls for ${o.seconds} s`);
      const secretKey = randomBytes(32).toString('base64');
      const r = await withDatabase(o.postgresUrl, (databaseUrl) =>
        runScenario({ mode: 'gateway', format: o.format, calls: o.scaleCalls, seconds: o.seconds, workDir: o.workDir, wavPath: o.wavPath, cpuProfDir: null, log: o.log, cluster: { nodes, databaseUrl, secretKey } }),
      );
      runs.push({ nodes, calls: o.scaleCalls, cpuPcts: r.targetCpuPcts, lost: lost(r), latencyP99: r.phones.latencyMs.p99, load: r.loadAverage });
      o.log(`  -> CPU ${r.targetCpuPcts.map((c) => `${c.toFixed(1)} %`).join(' + ')}, lost ${lost(r)}, p99 ${r.phones.latencyMs.p99.toFixed(2)} ms`);
    }
  }
  const total = (r: ScaleRun) => r.cpuPcts.reduce((a, b) => a + b, 0);
  const onePerCall = median(runs.filter((r) => r.nodes === 1).map((r) => total(r) / r.calls));
  const pairPerCall = median(runs.filter((r) => r.nodes > 1).map((r) => total(r) / r.calls));
  return { calls: o.scaleCalls, runs, onePerCall, pairPerCall, efficiency: onePerCall / pairPerCall };
}

export async function runClusterBench(o: ClusterBenchOptions): Promise<ClusterBenchResult> {
  o.log(`routing: ${o.commands} commands to the phone's node and as many through another node`);
  const routing = await measureRouting(o);
  const scaleOut = await measureScaleOut(o);
  return { routing, scaleOut, runs: o.findMax ? await findMax(o) : [] };
}

const MAX_HEADER = ['gateways', 'N', 'live', 'lost', 'latency p99 ms', 'jitter p99 ms', 'gateways CPU', 'phones CPU', 'load', ''];
const ROUTING_HEADER = ['command (dtmf) sent to', 'p50 ms', 'p99 ms', 'max ms'];
const SCALE_HEADER = ['gateways', 'N', 'calls each', 'CPU of each gateway', 'CPU in all', 'CPU per call', 'lost', 'latency p99 ms', 'load'];

function scaleRows(r: ScaleOutResult): string[][] {
  return r.runs.map((run) => {
    const total = run.cpuPcts.reduce((a, b) => a + b, 0);
    return [String(run.nodes), String(run.calls), String(Math.round(run.calls / run.nodes)), run.cpuPcts.map((c) => `${c.toFixed(1)} %`).join(' + '),
      `${total.toFixed(1)} %`, `${(total / run.calls).toFixed(3)} %`, String(run.lost), run.latencyP99.toFixed(2), run.load.toFixed(1)];
  });
}

/** What N gateways on N cores would carry, from the measured CPU per call (a core at 100 %; the arithmetic, not a run). */
function scaleArithmetic(r: ScaleOutResult, nodes: number): string[] {
  const oneCore = 100 / r.onePerCall;
  return [
    `- scale-out efficiency (one gateway's CPU for ${r.calls} calls / the ${nodes} gateways' together, medians of ${r.runs.length / 2} runs each): **${r.efficiency.toFixed(2)}** (target >= 0.9): ` +
      `${r.onePerCall.toFixed(3)} % of a core per call on one gateway, ${r.pairPerCall.toFixed(3)} % on ${nodes}`,
    `- the arithmetic: one gateway spends ${r.onePerCall.toFixed(3)} % of a core per call, so one core carries about ${Math.floor(oneCore)} calls by CPU alone; ` +
      `k gateways on k cores carry k x ${Math.floor(oneCore)} x ${r.efficiency.toFixed(2)} = ${Math.floor(oneCore * r.efficiency)} calls per core (${[2, 4, 8].map((k) => `${k}: ${Math.floor(k * oneCore * r.efficiency)}`).join(', ')}), ` +
      `as long as PostgreSQL is not the limit (a call writes only at its state changes) and each gateway keeps the 20 % headroom that latency needs`,
  ];
}

function routingRows(r: RoutingResult): string[][] {
  const row = (label: string, p: Percentiles) => [label, p.p50.toFixed(2), p.p99.toFixed(2), p.max.toFixed(2)];
  return [row('the node holding the phone', r.direct), row('another node (routed)', r.routed), ['added by routing', (r.routed.p50 - r.direct.p50).toFixed(2), (r.routed.p99 - r.direct.p99).toFixed(2), '']];
}

function summary(result: ClusterBenchResult, format: Format, nodes: number): string[] {
  const [one, many] = result.runs;
  const added = result.routing.routed.p50 - result.routing.direct.p50;
  return [
    `- routing adds **${added.toFixed(2)} ms** at p50 (target < 5 ms): ${result.routing.direct.p50.toFixed(2)} ms direct, ${result.routing.routed.p50.toFixed(2)} ms routed, ${result.routing.commands} commands each`,
    ...scaleArithmetic(result.scaleOut, nodes),
    ...(one && many
      ? [`- largest N with zero loss and p99 < ${MAX_N_LATENCY_P99_MS} ms, ${format}: **${one.best || 'none'}** with 1 gateway, **${many.best || 'none'}** with ${many.nodes}` +
          (one.best > 0 ? ` (${(many.best / one.best).toFixed(2)}x)` : '')]
      : []),
  ];
}

export function clusterText(result: ClusterBenchResult, format: Format, nodes: number): string {
  return [
    textTable(ROUTING_HEADER, routingRows(result.routing)),
    '',
    textTable(SCALE_HEADER, scaleRows(result.scaleOut)),
    ...(result.runs.length ? ['', textTable(MAX_HEADER, result.runs.flatMap((r) => r.rows))] : []),
    '',
    ...summary(result, format, nodes),
  ].join('\n');
}

export function clusterMarkdown(result: ClusterBenchResult, o: Pick<ClusterBenchOptions, 'format' | 'start' | 'step' | 'seconds' | 'nodes'>, header: string): string {
  return [
    `## Several gateways on one PostgreSQL (issues 14 and 22)`,
    '',
    header,
    '',
    ...summary(result, o.format, o.nodes),
    '',
    markdownTable(ROUTING_HEADER, routingRows(result.routing)),
    '',
    `Scale-out: ${result.scaleOut.calls} calls, ${o.seconds} s each, one gateway and ${o.nodes} taking turns; every gateway of a run on the same PostgreSQL (a database of its own per run); the phones spread over the gateways in turn, so each carries its share. CPU: % of one core over the measured window, read from /proc for each gateway process. Load: the machine's 1-minute load average at the end of each run.`,
    '',
    markdownTable(SCALE_HEADER, scaleRows(result.scaleOut)),
    ...(result.runs.length
      ? ['', `N stepped by ${o.step} from ${o.start}, ${o.seconds} s each, one gateway and ${result.runs[1]?.nodes ?? 'N'} taking turns at each N.`, '', markdownTable(MAX_HEADER, result.runs.flatMap((r) => r.rows))]
      : []),
  ].join('\n');
}
