import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import type { Format, LoopDelay, Mode, PhoneSideResult, PhonesMessage, PhonesStart, TargetMessage } from './protocol.js';
import { BENCH_API_KEY } from './protocol.js';
import { cpuMs, rssMb, spawnChild } from './proc.js';

export interface ScenarioOptions {
  mode: Mode;
  format: Format;
  calls: number;
  seconds: number;
  workDir: string;
  wavPath: string;
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
  /** Of one core, over the window. */
  targetCpuPct: number;
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

export function scenarioName(mode: Mode, format: Format): string {
  return mode === 'relay' ? 'baseline (ws relay)' : `gateway ${format}`;
}

/** One measured run: a fresh target process (gateway or relay) and a fresh phones process. */
export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const name = scenarioName(o.mode, o.format);
  const dataDir = path.join(o.workDir, `data-${o.mode}-${o.format}-${o.calls}`);
  mkdirSync(dataDir, { recursive: true });
  const flags = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
  const target =
    o.mode === 'gateway'
      ? spawnChild<TargetMessage>(
          'gateway-process.ts',
          { ...baseEnv(), PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', HTTP_GATEWAY_API_KEY: BENCH_API_KEY },
          flags,
        )
      : spawnChild<TargetMessage>('relay-process.ts', baseEnv(), flags);
  const phones = spawnChild<PhonesMessage>('phones-process.ts', baseEnv());
  const budgetMs = 90_000 + 200 * o.calls + (o.seconds * 1000 + WARMUP_MS + GRACE_MS);
  let rssPeak = 0;
  const rssTimer = setInterval(() => {
    try {
      rssPeak = Math.max(rssPeak, rssMb(target.pid));
    } catch {
      // the target is gone; the run fails below
    }
  }, 500);
  try {
    const ready = await target.next((m): m is Extract<TargetMessage, { type: 'ready' }> => m.type === 'ready', 30_000, 'ready message');
    const start: PhonesStart = {
      type: 'start',
      mode: o.mode,
      format: o.format,
      targetUrl: ready.url,
      apiKey: BENCH_API_KEY,
      calls: o.calls,
      seconds: o.seconds,
      warmupMs: WARMUP_MS,
      graceMs: GRACE_MS,
      wavPath: o.wavPath,
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
    target.send({ type: 'loop-delay-reset' });
    const t0 = performance.now();
    const targetCpu0 = cpuMs(target.pid);
    const phonesCpu0 = cpuMs(phones.pid);
    o.log(`  ${name}: measuring for ${o.seconds} s`);
    failed(await phones.next(isWindow('end'), left(), 'end of the window'));
    const wall = performance.now() - t0;
    const targetCpuPct = ((cpuMs(target.pid) - targetCpu0) / wall) * 100;
    const phonesCpuPct = ((cpuMs(phones.pid) - phonesCpu0) / wall) * 100;
    const targetRssMb = rssMb(target.pid);
    const loopDelay = target.next((m): m is Extract<TargetMessage, { type: 'loop-delay' }> => m.type === 'loop-delay', 10_000, 'loop delay');
    target.send({ type: 'loop-delay-read' });
    const targetLoopDelay = (await loopDelay).delay;
    const outcome = await phones.next(
      (m): m is Extract<PhonesMessage, { type: 'result' | 'error' }> => m.type === 'result' || m.type === 'error',
      left(),
      'results',
    );
    if (outcome.type === 'error') throw new Error(`phones process failed: ${outcome.message}`);
    return {
      name,
      targetPid: target.pid,
      mode: o.mode,
      format: o.format,
      phones: outcome.result,
      targetCpuPct,
      phonesCpuPct,
      targetRssMb,
      targetRssPeakMb: Math.max(rssPeak, targetRssMb),
      targetLoopDelay,
      targetLogLines: target.lines,
      targetLogTail: target.tail.slice(-5),
      loadAverage: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    clearInterval(rssTimer);
    await Promise.all([phones.stop(5000), target.stop(15_000)]);
  }
}
