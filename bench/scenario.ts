import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import type { Format, LoopDelay, Mode, PhoneSideResult, PhonesMessage, PhonesStart, TargetMessage } from './protocol.js';
import { BENCH_API_KEY } from './protocol.js';
import { BYTES_PER_MS } from './chunks.js';
import { cpuMs, rssMb, spawnChild, type Child } from './proc.js';

export interface ScenarioOptions {
  mode: Mode;
  format: Format;
  calls: number;
  seconds: number;
  workDir: string;
  wavPath: string;
  /** Several gateways on one PostgreSQL database (`--nodes`); the phones are spread over them. */
  cluster?: { nodes: number; databaseUrl: string; secretKey: string } | undefined;
  /** `--chunk-ms`/`--chunk-bytes`: the echo agent answers in real-time chunks (chunks.ts). Bytes are in the agent's own encoding (the relay's is raw). */
  chunk?: { ms: number } | { bytes: number } | undefined;
  /** Directory for a CPU profile of the target, or null. */
  cpuProfDir: string | null;
  log: (text: string) => void;
}

export interface ScenarioResult {
  name: string;
  /** The target's process id (its CPU profile is named after it). */
  targetPid: number;
  mode: Mode;
  format: Format;
  phones: PhoneSideResult;
  /** Of one core, over the window (the sum over the gateways of a cluster run). */
  targetCpuPct: number;
  /** Each target's own share of that, in the order the phones were spread over them. */
  targetCpuPcts: number[];
  phonesCpuPct: number;
  targetRssMb: number;
  targetRssPeakMb: number;
  targetLoopDelay: LoopDelay;
  /** Log lines the target wrote (LOG_LEVEL=warn). */
  targetLogLines: number;
  targetLogTail: string[];
  /** 1-minute load average at the end of the window (the machine may be shared). */
  loadAverage: number;
}

const WARMUP_MS = 2000;
const GRACE_MS = 1500;

export function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

/** The echo agent's chunk in bytes of its own encoding (the relay's agent speaks raw), or undefined for frame by frame. */
function chunkBytesOf(o: ScenarioOptions): number | undefined {
  if (!o.chunk) return undefined;
  if ('bytes' in o.chunk) return o.chunk.bytes;
  return Math.max(1, Math.round(o.chunk.ms * BYTES_PER_MS[o.mode === 'relay' ? 'raw' : o.format]));
}

export function scenarioName(mode: Mode, format: Format, nodes?: number): string {
  if (mode === 'relay') return 'baseline (ws relay)';
  return nodes === undefined ? `gateway ${format}` : `${nodes} gateway${nodes > 1 ? 's' : ''} ${format} (PostgreSQL)`;
}

/** The target processes: the relay, one gateway, or several gateways of one cluster. */
function startTargets(o: ScenarioOptions, dataDir: string, flags: string[]): Array<Child<TargetMessage>> {
  if (o.mode === 'relay') return [spawnChild<TargetMessage>('relay-process.ts', baseEnv(), flags)];
  const env = { ...baseEnv(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', HTTP_GATEWAY_API_KEY: BENCH_API_KEY };
  if (!o.cluster) return [spawnChild<TargetMessage>('gateway-process.ts', { ...env, DATA_DIR: dataDir }, flags)];
  const { nodes, databaseUrl, secretKey } = o.cluster;
  return Array.from({ length: nodes }, (_, i) =>
    spawnChild<TargetMessage>('gateway-process.ts', { ...env, DATA_DIR: `${dataDir}-${i}`, DATABASE_URL: databaseUrl, SECRET_KEY: secretKey }, flags),
  );
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** The worst of several gateways' event-loop delays. */
function worstDelay(delays: LoopDelay[]): LoopDelay {
  const worst = (pick: (d: LoopDelay) => number) => Math.max(...delays.map(pick));
  return { ...delays[0]!, p50: worst((d) => d.p50), p99: worst((d) => d.p99), max: worst((d) => d.max) };
}

/** One measured run: a fresh target process (gateway or relay) and a fresh phones process. */
export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const name = scenarioName(o.mode, o.format, o.cluster?.nodes);
  const dataDir = path.join(o.workDir, `data-${o.mode}-${o.format}-${o.calls}`);
  mkdirSync(dataDir, { recursive: true });
  const flags = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
  const targets = startTargets(o, dataDir, flags);
  const phones = spawnChild<PhonesMessage>('phones-process.ts', baseEnv());
  const budgetMs = 90_000 + 200 * o.calls + (o.seconds * 1000 + WARMUP_MS + GRACE_MS);
  let rssPeak = 0;
  const rssTimer = setInterval(() => {
    try {
      rssPeak = Math.max(rssPeak, sum(targets.map((t) => rssMb(t.pid))));
    } catch {
      // the target is gone; the run fails below
    }
  }, 500);
  try {
    const ready = await Promise.all(targets.map((t) => t.next((m): m is Extract<TargetMessage, { type: 'ready' }> => m.type === 'ready', 30_000, 'ready message')));
    const start: PhonesStart = {
      type: 'start',
      mode: o.mode,
      format: o.format,
      targetUrl: ready[0]!.url,
      ...(ready.length > 1 ? { targetUrls: ready.map((r) => r.url) } : {}),
      apiKey: BENCH_API_KEY,
      calls: o.calls,
      seconds: o.seconds,
      warmupMs: WARMUP_MS,
      graceMs: GRACE_MS,
      wavPath: o.wavPath,
      chunkBytes: chunkBytesOf(o),
    };
    phones.process.on('message', (raw: unknown) => {
      const m = raw as PhonesMessage;
      if (m.type === 'progress') o.log(`  ${name}: ${m.text}`);
    });
    phones.send(start);
    const deadline = Date.now() + budgetMs;
    const left = () => Math.max(1000, deadline - Date.now());
    const isWindow = (edge: 'start' | 'end') => (m: PhonesMessage): m is Extract<PhonesMessage, { type: 'window' }> =>
      m.type === 'error' || (m.type === 'window' && m.edge === edge);
    const failed = (m: PhonesMessage) => {
      if (m.type === 'error') throw new Error(`phones process failed: ${m.message}`);
    };
    failed(await phones.next(isWindow('start'), left(), 'start of the window'));
    for (const t of targets) t.send({ type: 'loop-delay-reset' });
    const t0 = performance.now();
    const targetCpu0 = targets.map((t) => cpuMs(t.pid));
    const phonesCpu0 = cpuMs(phones.pid);
    o.log(`  ${name}: measuring for ${o.seconds} s`);
    failed(await phones.next(isWindow('end'), left(), 'end of the window'));
    const wall = performance.now() - t0;
    const targetCpuPcts = targets.map((t, i) => ((cpuMs(t.pid) - targetCpu0[i]!) / wall) * 100);
    const targetCpuPct = sum(targetCpuPcts);
    const phonesCpuPct = ((cpuMs(phones.pid) - phonesCpu0) / wall) * 100;
    const targetRssMb = sum(targets.map((t) => rssMb(t.pid)));
    const loopDelays = Promise.all(targets.map((t) => t.next((m): m is Extract<TargetMessage, { type: 'loop-delay' }> => m.type === 'loop-delay', 10_000, 'loop delay')));
    for (const t of targets) t.send({ type: 'loop-delay-read' });
    const targetLoopDelay = worstDelay((await loopDelays).map((m) => m.delay));
    const outcome = await phones.next(
      (m): m is Extract<PhonesMessage, { type: 'result' | 'error' }> => m.type === 'result' || m.type === 'error',
      left(),
      'results',
    );
    if (outcome.type === 'error') throw new Error(`phones process failed: ${outcome.message}`);
    return {
      name,
      // Profiles are taken in single-target runs; with several gateways, the first one's.
      targetPid: targets[0]!.pid,
      mode: o.mode,
      format: o.format,
      phones: outcome.result,
      targetCpuPct,
      targetCpuPcts,
      phonesCpuPct,
      targetRssMb,
      targetRssPeakMb: Math.max(rssPeak, targetRssMb),
      targetLoopDelay,
      targetLogLines: sum(targets.map((t) => t.lines)),
      targetLogTail: targets.flatMap((t) => t.tail.slice(-5)),
      loadAverage: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    clearInterval(rssTimer);
    await Promise.all([phones.stop(5000), ...targets.map((t) => t.stop(15_000))]);
  }
}
