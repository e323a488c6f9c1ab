import '../src/v8-tuning.js';
import { createHistogram, performance } from 'node:perf_hooks';
import { FRAME_MS } from '../src/audio/index.js';
import { loadConfig } from '../src/config/index.js';
import { startGateway } from '../src/gateway.js';
import { PhoneAudioPort } from '../src/phones/index.js';
import { serveTargetCommands } from './loop-delay.js';

/** The gateway under test, alone in its process so its CPU and memory can be read. */
const config = loadConfig(process.env);
// The webhook run holds its receiver's answers while the events come in; the attempts must outlast that.
const webhookTimeoutMs = Number(process.env.BENCH_WEBHOOK_TIMEOUT_MS) || undefined;
const gateway = await startGateway({ config, ...(webhookTimeoutMs ? { timings: { webhookTimeoutMs } } : {}) });

// Benchmark-only instrumentation: when each phone's frames leave the play-out clock for its socket.
// It runs in the gateway's process and is charged to its CPU (the relay has none), so it samples:
// one second in every five, every frame of every phone; outside that second a frame costs it one
// flag's test (a timer turns it on and off, not a clock read per frame).
const PROBE_EVERY_MS = 5000;
const PROBE_FOR_MS = 1000;
const lastSent = new Map<string, number>();
const deviations = createHistogram();
let probing = false;
const probeTimer = setInterval(() => {
  probing = true;
  lastSent.clear();
  setTimeout(() => (probing = false), PROBE_FOR_MS).unref();
}, PROBE_EVERY_MS);
probeTimer.unref();
const send = PhoneAudioPort.prototype.send;
PhoneAudioPort.prototype.send = function (this: PhoneAudioPort, frame: Buffer): boolean {
  if (probing) {
    const now = performance.now();
    const last = lastSent.get(this.deviceId);
    lastSent.set(this.deviceId, now);
    // A gap of several frames is a pause in the audio (nothing queued), not jitter.
    if (last !== undefined && now - last < 5 * FRAME_MS) deviations.record(Math.max(1, Math.round(Math.abs(now - last - FRAME_MS) * 1000)));
  }
  return send.call(this, frame);
};
const us = (value: number) => value / 1000;

serveTargetCommands(() => gateway.close(), {
  reset: () => deviations.reset(),
  read: () => ({ p50: us(deviations.percentile(50)), p99: us(deviations.percentile(99)), max: us(deviations.max) }),
});
process.send?.({ type: 'ready', url: gateway.url });
