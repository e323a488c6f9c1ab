import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoopDelay, Percentiles, TargetCommand, TargetMessage } from './protocol.js';

/** A measurement the target resets and reads with its event-loop delay. */
export interface WindowedMeasure {
  reset(): void;
  read(): Percentiles;
}

/** Answers the runner's event-loop-delay questions over IPC; `stop` runs `onStop`. */
export function serveTargetCommands(onStop: () => Promise<void>, sendJitter?: WindowedMeasure): void {
  // The histogram records whole timer intervals: the delay is what exceeds the resolution.
  const resolutionMs = 5;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const send = (msg: TargetMessage) => process.send?.(msg);
  // The measured window on the clock of V8's CPU profiles (monotonic, microseconds), to profile it alone.
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  let fromUs = nowUs();
  process.on('message', (raw: unknown) => {
    const cmd = raw as TargetCommand;
    if (cmd.type === 'loop-delay-reset') {
      fromUs = nowUs();
      histogram.reset();
      sendJitter?.reset();
    } else if (cmd.type === 'loop-delay-read') {
      const ms = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
      const delay: LoopDelay = {
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        windowUs: { from: fromUs, to: nowUs() },
        ...(sendJitter ? { sendJitter: sendJitter.read() } : {}),
      };
      send({ type: 'loop-delay', delay });
    } else if (cmd.type === 'stop') void onStop().finally(() => process.exit(0));
  });
  // The runner went away: do not outlive it.
  process.on('disconnect', () => void onStop().finally(() => process.exit(0)));
}
