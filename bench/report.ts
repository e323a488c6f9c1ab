import { cpus, release, totalmem } from 'node:os';
import type { ScenarioResult } from './scenario.js';

/** Issue 12's targets, each against the relay (or raw) measured in the same run. */
export const TARGETS = {
  calls: 200,
  cpuVsRelay: 1.5,
  vendorCpuVsRaw: 1.3,
  latencyP99VsRelay: 2,
  jitterP99VsRelay: 1.5,
  roundTripP50Ms: 25,
  roundTripP99Ms: 45,
} as const;
export const MAX_N_LATENCY_P99_MS = 20;
/** --find-max: the gateway's largest N against the relay's, same run. */
export const MAX_N_VS_RELAY = 0.8;

export function machine(): string[] {
  const cpu = cpus();
  return [
    `- CPU: ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores`,
    `- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node ${process.version}, Linux ${release()}`,
  ];
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '-');
const int = (v: number) => String(v);
const pct = (v: number) => `${v.toFixed(0)} %`;

export function lost(r: ScenarioResult): number {
  const p = r.phones;
  return p.lostToAgent + p.lostEcho + p.droppedAtPhone;
}

export function reordered(r: ScenarioResult): number {
  return r.phones.outOfOrderAtAgent + r.phones.outOfOrderEcho;
}

/** Rows of the results table: label, then one cell per scenario. */
export function resultRows(results: ScenarioResult[], baseline: ScenarioResult | undefined): string[][] {
  const row = (label: string, cell: (r: ScenarioResult) => string) => [label, ...results.map(cell)];
  const added = (pick: (r: ScenarioResult) => number) => (r: ScenarioResult) =>
    baseline && r !== baseline ? ms(pick(r) - pick(baseline)) : '-';
  return [
    row('concurrent calls (live / placed)', (r) => `${r.phones.callsLive} / ${r.phones.callsRequested}`),
    row('frames sent by the phones (window)', (r) => int(r.phones.sent)),
    row('received by the agent', (r) => int(r.phones.atAgent)),
    row('lost phone -> agent (1.5 s grace)', (r) => int(r.phones.lostToAgent)),
    row('out of order at the agent', (r) => int(r.phones.outOfOrderAtAgent)),
    row('received back at the phones', (r) => int(r.phones.echoed)),
    row('not played back within 1.5 s', (r) => int(r.phones.lostEcho)),
    row('out of order at the phones', (r) => int(r.phones.outOfOrderEcho)),
    row('dropped by the phones (1 s queued)', (r) => int(r.phones.droppedAtPhone)),
    row('latency phone -> agent p50 (ms)', (r) => ms(r.phones.latencyMs.p50)),
    row('latency phone -> agent p99 (ms)', (r) => ms(r.phones.latencyMs.p99)),
    row('latency phone -> agent max (ms)', (r) => ms(r.phones.latencyMs.max)),
    row('added latency p50 (ms)', added((r) => r.phones.latencyMs.p50)),
    row('added latency p99 (ms)', added((r) => r.phones.latencyMs.p99)),
    row('round trip to the phone p50 (ms)', (r) => ms(r.phones.roundTripMs.p50)),
    row('round trip to the phone p99 (ms)', (r) => ms(r.phones.roundTripMs.p99)),
    row('play-out jitter p50 (ms)', (r) => ms(r.phones.jitterMs.p50)),
    row('play-out jitter p99 (ms)', (r) => ms(r.phones.jitterMs.p99)),
    row('play-out jitter max (ms)', (r) => ms(r.phones.jitterMs.max)),
    row('gateway send pacing, off 20 ms p50 (ms)', (r) => (r.targetLoopDelay.sendJitter ? ms(r.targetLoopDelay.sendJitter.p50) : '-')),
    row('gateway send pacing, off 20 ms p99 (ms)', (r) => (r.targetLoopDelay.sendJitter ? ms(r.targetLoopDelay.sendJitter.p99) : '-')),
    ...fidelityRows(results),
    row('target CPU (one core = 100 %)', (r) => pct(r.targetCpuPct)),
    row('target RSS end / peak (MB)', (r) => `${r.targetRssMb.toFixed(0)} / ${r.targetRssPeakMb.toFixed(0)}`),
    row('target event-loop delay p99 (ms)', (r) => ms(r.targetLoopDelay.p99)),
    row('phones + agent process CPU', (r) => pct(r.phonesCpuPct)),
    row('phones + agent event-loop delay p99 (ms)', (r) => ms(r.phones.loopDelayMs.p99)),
    row('machine load average (1 min)', (r) => r.loadAverage.toFixed(1)),
  ];
}

/** With `--chunk-ms`/`--chunk-bytes`: the echo's chunks, and the silence inserted into them per minute of speech (target 0). */
function fidelityRows(results: ScenarioResult[]): string[][] {
  if (!results.some((r) => r.phones.fidelity)) return [];
  const row = (label: string, cell: (f: NonNullable<ScenarioResult['phones']['fidelity']>) => string) => [label, ...results.map((r) => (r.phones.fidelity ? cell(r.phones.fidelity) : '-'))];
  const perMinute = (samples: number, speech: number) => (speech > 0 ? ((samples / 16) / (speech / 16_000 / 60)).toFixed(1) : '-');
  return [
    row('echo chunks of the agent', (f) => `${f.chunkBytes} B (${Number(f.chunkMs.toFixed(2))} ms)`),
    row('speech heard by the phones (s)', (f) => (f.speechSamples / 16_000).toFixed(1)),
    row('inserted silence per minute of speech (ms)', (f) => perMinute(f.insertedSamples, f.speechSamples)),
    row('other samples not as sent, per minute of speech (ms)', (f) => perMinute(f.otherSamples, f.speechSamples)),
  ];
}

export function ratioRows(results: ScenarioResult[], baseline: ScenarioResult): string[][] {
  const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(1)}x` : '-');
  const gw = results.filter((r) => r !== baseline);
  const row = (label: string, pick: (r: ScenarioResult) => number) => [label, ...gw.map((r) => ratio(pick(r), pick(baseline)))];
  return [
    ['gateway / baseline', ...gw.map((r) => r.name)],
    row('latency p50', (r) => r.phones.latencyMs.p50),
    row('latency p99', (r) => r.phones.latencyMs.p99),
    row('jitter p99', (r) => r.phones.jitterMs.p99),
    row('CPU', (r) => r.targetCpuPct),
    row('RSS (end)', (r) => r.targetRssMb),
  ];
}

/** One row per target of issue 12: the measured value and met / MISSED, per gateway format. */
export function targetRows(results: ScenarioResult[], baseline: ScenarioResult): string[][] {
  const gw = results.filter((r) => r.mode === 'gateway');
  const raw = gw.find((r) => r.format === 'raw');
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const x = (v: number) => `${v.toFixed(2)}x`;
  const cell = (value: number, limit: number, show: (v: number) => string) =>
    Number.isFinite(value) ? `${show(value)} ${verdict(value <= limit)}` : '-';
  const row = (label: string, pick: (r: ScenarioResult) => string) => [label, ...gw.map(pick)];
  return [
    row(`CPU / relay <= ${TARGETS.cpuVsRelay}x (raw)`, (r) => (r.format === 'raw' ? cell(r.targetCpuPct / baseline.targetCpuPct, TARGETS.cpuVsRelay, x) : '-')),
    row(`CPU / raw <= ${TARGETS.vendorCpuVsRaw}x (vendor)`, (r) => (r.format === 'vendor' && raw ? cell(r.targetCpuPct / raw.targetCpuPct, TARGETS.vendorCpuVsRaw, x) : '-')),
    row(`latency p99 / relay <= ${TARGETS.latencyP99VsRelay}x`, (r) => cell(r.phones.latencyMs.p99 / baseline.phones.latencyMs.p99, TARGETS.latencyP99VsRelay, x)),
    row(`jitter p99 at the phones / relay <= ${TARGETS.jitterP99VsRelay}x`, (r) => cell(r.phones.jitterMs.p99 / baseline.phones.jitterMs.p99, TARGETS.jitterP99VsRelay, x)),
    row(`echo round trip p50 <= ${TARGETS.roundTripP50Ms} ms`, (r) => cell(r.phones.roundTripMs.p50, TARGETS.roundTripP50Ms, (v) => `${ms(v)} ms`)),
    row(`echo round trip p99 <= ${TARGETS.roundTripP99Ms} ms`, (r) => cell(r.phones.roundTripMs.p99, TARGETS.roundTripP99Ms, (v) => `${ms(v)} ms`)),
    row(`${TARGETS.calls} calls, none lost or reordered`, (r) => `${r.phones.callsLive} live, ${lost(r)} lost, ${reordered(r)} reordered ${verdict(r.phones.callsLive >= TARGETS.calls && lost(r) === 0 && reordered(r) === 0)}`),
  ];
}

export const targetHeader = (results: ScenarioResult[]): string[] => ['target (issue 12)', ...results.filter((r) => r.mode === 'gateway').map((r) => r.name)];

export function textTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function markdownTable(header: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(header), line(header.map((_, c) => (c === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}
