import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killChildren, REPO } from './proc.js';
import { profileSummary, type ProfiledWindow } from './profile.js';
import type { Format } from './protocol.js';
import {
  lost,
  machine,
  markdownTable,
  MAX_N_LATENCY_P99_MS,
  MAX_N_VS_RELAY,
  ratioRows,
  resultRows,
  targetHeader,
  targetRows,
  textTable,
} from './report.js';
import { runScenario, type ScenarioResult } from './scenario.js';
import { codedWav } from './signal.js';
import { runWebhookBench, webhookRows, webhookTable } from './webhooks.js';
import { clusterMarkdown, clusterText, runClusterBench } from './cluster.js';

const USAGE = `npm run bench -- [options]

  --calls N        concurrent calls (default 200)
  --seconds S      measured seconds per scenario (default 30; 10 with --find-max)
  --formats LIST   stream formats to measure: raw,vendor (default both)
  --find-max       step N up (--start, --step) until a call loses a frame or p99 >= ${MAX_N_LATENCY_P99_MS} ms,
                   the relay and each format side by side, one step of each per round; a failure
                   counts when the same N fails again next round; the gateway's N against the relay's
  --start N        first N of --find-max (default 200)
  --step N         step of --find-max (default 100)
  --resolution N   after the first failure, halve the gap to the last pass down to N calls (default 25)
  --max-calls N    highest N --find-max tries (default 2000)
  --webhooks       webhook delivery under a burst: --calls calls x --events events (default 200 x 20)
                   from --phones raw phones (default 20) to a receiver answering in --answer-ms (default 50)
  --nodes N        N gateway processes on one PostgreSQL (VG_POSTGRES_URL) against one: what routing a
                   command adds (--commands, default 500); the scale-out: --calls calls (default 200)
                   on 1 and on N gateways taking turns, --repeats times (default 2), each gateway's
                   CPU per call and the efficiency; with --find-max also the largest N of 1 and of N
                   gateways (--formats: the first one; --start, --step, --max-calls, --seconds)
  --chunk-ms M     the echo agent sends back in real-time chunks of M ms (e.g. 250, 37) instead of frame by frame
  --chunk-bytes B  the same in chunks of B bytes of each stream's own encoding (raw: PCM, vendor: mu-law;
                   758 is Pipecat's Twilio chunk); both report the silence inserted per minute of speech
  --cpu-prof       profile the gateway (node --cpu-prof) into bench/profiles and list the hottest functions
  --no-write       do not update docs/performance.md
`;

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '200' },
    seconds: { type: 'string' },
    formats: { type: 'string', default: 'raw,vendor' },
    'find-max': { type: 'boolean', default: false },
    repeats: { type: 'string' },
    start: { type: 'string', default: '200' },
    step: { type: 'string', default: '100' },
    resolution: { type: 'string', default: '25' },
    'max-calls': { type: 'string', default: '2000' },
    'cpu-prof': { type: 'boolean', default: false },
    webhooks: { type: 'boolean', default: false },
    nodes: { type: 'string' },
    commands: { type: 'string', default: '500' },
    events: { type: 'string', default: '20' },
    phones: { type: 'string', default: '20' },
    'answer-ms': { type: 'string', default: '50' },
    'no-write': { type: 'boolean', default: false },
    'chunk-ms': { type: 'string' },
    'chunk-bytes': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

function positive(name: string, text: string | undefined, fallback: number): number {
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(n) || n <= 0) {
    process.stderr.write(`--${name} must be a positive integer\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

const findMax = args['find-max'];
const calls = positive('calls', args.calls, 200);
const seconds = positive('seconds', args.seconds, findMax ? 10 : 30);
const formats = args.formats.split(',').map((f) => f.trim()) as Format[];
if (formats.length === 0 || formats.some((f) => f !== 'raw' && f !== 'vendor')) {
  process.stderr.write(`--formats takes raw, vendor or raw,vendor\n${USAGE}`);
  process.exit(2);
}

if (args['chunk-ms'] !== undefined && args['chunk-bytes'] !== undefined) {
  process.stderr.write(`--chunk-ms and --chunk-bytes are one choice\n${USAGE}`);
  process.exit(2);
}
const chunk = args['chunk-ms'] !== undefined ? { ms: positive('chunk-ms', args['chunk-ms'], 20) } : args['chunk-bytes'] !== undefined ? { bytes: positive('chunk-bytes', args['chunk-bytes'], 640) } : undefined;

const workDir = mkdtempSync(path.join(tmpdir(), 'vg-bench-'));
const wavPath = path.join(workDir, 'coded.wav');
writeFileSync(wavPath, codedWav());
const profileDir = args['cpu-prof'] ? path.join(REPO, 'bench', 'profiles') : null;
if (profileDir) mkdirSync(profileDir, { recursive: true });

function cleanup(): void {
  killChildren();
  rmSync(workDir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

const log = (text: string) => process.stdout.write(`${text}\n`);
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;

function scenario(mode: 'gateway' | 'relay', format: Format, n: number, secs: number): Promise<ScenarioResult> {
  log(`${mode === 'relay' ? 'baseline relay' : `gateway ${format}`}: ${n} calls for ${secs} s`);
  return runScenario({ mode, format, calls: n, seconds: secs, workDir, wavPath, chunk, cpuProfDir: profileDir, log });
}

/** With --cpu-prof: where each target spent its measured window. */
function printProfiles(results: ScenarioResult[], since: number): void {
  if (!profileDir) return;
  const windows: ProfiledWindow[] = results.map((r) => ({ label: `${r.name}, ${r.phones.callsRequested} calls`, pid: r.targetPid, windowUs: r.targetLoopDelay.windowUs }));
  const lines = profileSummary(profileDir, since, windows);
  if (lines.length) log(`\n${lines.join('\n')}`);
}

function printTargetLogs(results: ScenarioResult[]): void {
  for (const r of results) {
    if (r.targetLogLines === 0) continue;
    log(`\n${r.name} wrote ${r.targetLogLines} log lines (LOG_LEVEL=warn); the last:`);
    for (const line of r.targetLogTail) log(`  ${line}`);
  }
  for (const r of results) for (const e of r.phones.phonesErrors) log(`${r.name}: ${e}`);
}

/** Replaces the text between `<!-- bench:name -->` markers of docs/performance.md (or adds it). */
function writeSection(name: string, body: string): void {
  const file = path.join(REPO, 'docs', 'performance.md');
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  let text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Performance\n\nMeasured by `npm run bench` (see bench/README.md for the method). Each section is rewritten by the run that produced it.\n';
  const block = `${open}\n${body.trim()}\n${close}`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  text = start >= 0 && end > start ? text.slice(0, start) + block + text.slice(end + close.length) : `${text.trimEnd()}\n\n${block}\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  log(`\nwrote docs/performance.md (section ${name})`);
}

const header = () => [`- Date: ${new Date().toISOString()}`, ...machine(), `- Command: \`${command}\``].join('\n');

async function mainRun(): Promise<void> {
  const began = Date.now();
  const results: ScenarioResult[] = [];
  results.push(await scenario('relay', 'raw', calls, seconds));
  for (const format of formats) results.push(await scenario('gateway', format, calls, seconds));
  const baseline = results[0]!;
  const names = ['', ...results.map((r) => r.name)];
  log(`\n${calls} calls, ${seconds} s measured per scenario\n`);
  log(textTable(names, resultRows(results, baseline)));
  log('');
  const ratios = ratioRows(results, baseline);
  log(textTable(ratios[0]!, ratios.slice(1)));
  log('');
  log(textTable(targetHeader(results), targetRows(results, baseline)));
  printTargetLogs(results);
  printProfiles(results, began);
  if (args['no-write']) return;
  // A run with chunks has a section of its own: it measures fidelity, not the frame-by-frame baseline.
  const chunkTitle = chunk ? `, echo in real-time chunks of ${'ms' in chunk ? `${chunk.ms} ms` : `${chunk.bytes} bytes`}` : '';
  writeSection(
    chunk ? `chunks-${'ms' in chunk ? `${chunk.ms}ms` : `${chunk.bytes}b`}` : 'results',
    [
      `## ${calls} concurrent calls, ${seconds} s${chunkTitle}`,
      '',
      header(),
      '',
      markdownTable(names, resultRows(results, baseline)),
      '',
      '### Gateway / baseline',
      '',
      markdownTable(ratios[0]!, ratios.slice(1)),
      '',
      '### Targets (issue 12)',
      '',
      markdownTable(targetHeader(results), targetRows(results, baseline)),
    ].join('\n'),
  );
}

async function findMaxRun(): Promise<void> {
  const start = positive('start', args.start, 200);
  const step = positive('step', args.step, 100);
  const resolution = positive('resolution', args.resolution, 25);
  const maxCalls = positive('max-calls', args['max-calls'], 2000);
  const passes = (r: ScenarioResult) =>
    r.phones.callsLive === r.phones.callsRequested && lost(r) === 0 && r.phones.latencyMs.p99 < MAX_N_LATENCY_P99_MS;
  const rows: string[][] = [];
  const best = new Map<string, number>();
  const targets: { mode: 'gateway' | 'relay'; format: Format; name: string }[] = [
    { mode: 'relay', format: 'raw', name: 'relay' },
    ...formats.map((format) => ({ mode: 'gateway' as const, format, name: format })),
  ];
  // The targets are searched side by side, one step of each per round, so that the relay's N and
  // the gateway's are measured over the same minutes of a shared, noisy machine; and a failure
  // counts only when the same N fails again in the next round (for every target alike), so one
  // burst of someone else's work does not end a search.
  const searches = targets.map((target) => ({ ...target, n: start, good: 0, bad: undefined as number | undefined, failedOnce: undefined as number | undefined, done: false }));
  for (let round = 1; searches.some((s) => !s.done); round++) {
    for (const search of searches.filter((s) => !s.done)) {
      const { mode, format, name, n } = search;
      const r = await scenario(mode, format, n, seconds);
      const ok = passes(r);
      const retry = !ok && search.failedOnce !== n;
      const p = r.phones;
      const row = [String(round), name, String(n), `${p.callsLive}`, String(lost(r)), p.latencyMs.p99.toFixed(2), p.jitterMs.p99.toFixed(2), `${r.targetCpuPct.toFixed(0)} %`, `${r.phonesCpuPct.toFixed(0)} %`, r.targetRssMb.toFixed(0), ok ? 'pass' : retry ? 'fail, again next round' : 'fail'];
      rows.push(row);
      log(`  -> ${row.join('  ')}`);
      search.failedOnce = retry ? n : undefined;
      if (retry) continue;
      search.n = nextN(search, ok);
      if (search.n > maxCalls) search.done = true;
    }
  }
  /** The N to try after a verdict at `n`, or Infinity when the search is over. */
  function nextN(search: { n: number; good: number; bad: number | undefined }, ok: boolean): number {
    const { n } = search;
    if (ok) search.good = n;
    else search.bad = n;
    // Below the first step: halve until something passes.
    if (search.good === 0) return n < 20 ? Infinity : Math.floor(n / 2);
    if (search.bad === undefined) return n + step;
    // Then halve the gap between the last pass and the first failure down to --resolution: with
    // steps alone, the ratio to the relay could only be 100 %, 75 % or 67 % near the target.
    if (search.bad - search.good <= resolution) return Infinity;
    return search.good + Math.ceil((search.bad - search.good) / 2);
  }
  for (const search of searches) best.set(search.name, search.good);
  const relayBest = best.get('relay') ?? 0;
  const versus = (n: number) => (relayBest > 0 ? `${((n / relayBest) * 100).toFixed(0)} % of the relay's` : 'the relay found none');
  const verdicts = [...best]
    .filter(([name]) => name !== 'relay')
    .map(([name, n]) => `- **${name}: ${n || 'none'}**, ${versus(n)} (target >= ${MAX_N_VS_RELAY * 100} %: ${relayBest > 0 && n / relayBest >= MAX_N_VS_RELAY ? 'met' : 'MISSED'})`);
  const head = ['round', 'target', 'N', 'live', 'lost', 'latency p99 ms', 'jitter p99 ms', 'target CPU', 'phones CPU', 'target RSS MB', ''];
  log(`\n${textTable(head, rows)}\n`);
  for (const [name, n] of best) log(`largest N with zero loss and p99 < ${MAX_N_LATENCY_P99_MS} ms, ${name}: ${n || 'none'}`);
  for (const line of verdicts) log(line);
  if (args['no-write']) return;
  writeSection(
    'max',
    [
      `## Largest N with zero loss and one-way latency p99 under ${MAX_N_LATENCY_P99_MS} ms`,
      '',
      header(),
      '',
      `- **relay: ${relayBest || 'none'}** (all targets side by side, one step of each per round; N stepped by ${step} from ${start}, then the gap between the last pass and the first failure halved down to ${resolution} calls; a failure counted when the same N failed again the next round; ${seconds} s each; highest tried ${maxCalls})`,
      ...verdicts,
      '',
      markdownTable(head, rows),
    ].join('\n'),
  );
}

async function webhooksRun(): Promise<void> {
  const began = Date.now();
  const result = await runWebhookBench({
    phones: positive('phones', args.phones, 20),
    calls,
    eventsPerCall: positive('events', args.events, 20),
    answerMs: positive('answer-ms', args['answer-ms'], 50),
    baselineSeconds: 10,
    workDir,
    cpuProfDir: profileDir,
    log,
  });
  log(`\n${textTable(['', 'value'], webhookRows(result))}`);
  const profile = profileDir ? profileSummary(profileDir, began, [{ label: 'gateway while draining', pid: result.gatewayPid, windowUs: result.loopDelay.windowUs }]) : [];
  if (profile.length) log(`\n${profile.join('\n')}`);
  if (args['no-write']) return;
  writeSection('webhooks', [`## Webhook delivery from a backlog of ${result.events} webhooks`, '', header(), '', webhookTable(result)].join('\n'));
}

async function clusterRun(nodes: number): Promise<void> {
  const postgresUrl = process.env.VG_POSTGRES_URL;
  if (!postgresUrl) throw new Error('--nodes needs PostgreSQL: set VG_POSTGRES_URL to a role that may create databases (.ci/run shows how)');
  const options = {
    nodes,
    postgresUrl,
    format: formats[0]!,
    start: positive('start', args.start, 200),
    step: positive('step', args.step, 100),
    maxCalls: positive('max-calls', args['max-calls'], 2000),
    seconds: positive('seconds', args.seconds, 10),
    commands: positive('commands', args.commands, 500),
    scaleCalls: positive('calls', args.calls, 200),
    scaleRepeats: positive('repeats', args.repeats, 2),
    findMax,
    workDir,
    wavPath,
    log,
  };
  const result = await runClusterBench(options);
  log(`\n${clusterText(result, options.format, nodes)}`);
  if (!args['no-write']) writeSection('cluster', clusterMarkdown(result, options, header()));
}

try {
  await (args.nodes !== undefined ? clusterRun(positive('nodes', args.nodes, 2)) : args.webhooks ? webhooksRun() : findMax ? findMaxRun() : mainRun());
} catch (err) {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
} finally {
  cleanup();
}
