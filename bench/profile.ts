import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './proc.js';

/** Which part of which process to summarize: the measured window of one scenario's target. */
export interface ProfiledWindow {
  label: string;
  pid: number;
  /** Microseconds on the profile's own clock; absent for the whole profile. */
  windowUs?: { from: number; to: number };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`: the main thread is 0 (tsx's loader runs in another). */
function pidAndThread(file: string): { pid: number; thread: number } | null {
  const m = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(path.basename(file));
  return m ? { pid: Number(m[1]), thread: Number(m[2]) } : null;
}

/**
 * The hottest functions by self time of each target's main thread, counting only the samples taken
 * inside its measured window (setup, pairing and shutdown left out), and how busy it was.
 */
export function profileSummary(dir: string, since: number, targets: ProfiledWindow[], top = 25): string[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= since);
  const lines: string[] = [];
  for (const target of targets) {
    const file = files.find((f) => {
      const id = pidAndThread(f);
      return id?.pid === target.pid && id.thread === 0;
    });
    if (!file) continue;
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const hits = new Map<string, number>();
    let total = 0;
    let t = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i] ?? 0;
      if (target.windowUs && (t < target.windowUs.from || t > target.windowUs.to)) continue;
      const node = byId.get(profile.samples[i]!);
      if (!node) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const where = url ? `${url.replace(`file://${REPO}/`, '').replace(/^.*node_modules\//, '')}:${lineNumber + 1}` : '';
      const key = `${functionName || '(anonymous)'} ${where}`.trim();
      hits.set(key, (hits.get(key) ?? 0) + 1);
      total += 1;
    }
    if (total === 0) continue;
    const idle = hits.get('(idle)') ?? 0;
    const span = target.windowUs ? `${((target.windowUs.to - target.windowUs.from) / 1e6).toFixed(1)} s window` : 'whole run';
    lines.push(`${target.label}: ${path.relative(REPO, file)} (${span}, ${total} samples, main thread busy ${(((total - idle) / total) * 100).toFixed(1)} %), hottest by self time:`);
    for (const [key, n] of [...hits].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      lines.push(`  ${((n / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
    }
  }
  return lines;
}
