/** Messages between the benchmark's processes (Node IPC channels). */

export type Mode = 'gateway' | 'relay';
export type Format = 'raw' | 'vendor';

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

export interface PhonesStart {
  type: 'start';
  mode: Mode;
  format: Format;
  /** http:// of the gateway, or ws:// of the relay. */
  targetUrl: string;
  /** Several gateways (`--nodes`): phone i pairs, connects and places its call at node i mod n, as a balancer would spread them. */
  targetUrls?: string[];
  apiKey: string;
  calls: number;
  seconds: number;
  warmupMs: number;
  graceMs: number;
  wavPath: string;
  /** `--chunk-ms`/`--chunk-bytes`: the echo agent sends back in real-time chunks of this many bytes of the stream's encoding. */
  chunkBytes?: number | undefined;
}

/** With chunks: what the phones heard of what the agent sent, over the window, in 16 kHz samples. */
export interface Fidelity {
  chunkBytes: number;
  chunkMs: number;
  /** Samples the phones received as the agent sent them. */
  speechSamples: number;
  /** Zero samples the phones received where the agent had sent none: silence inserted. */
  insertedSamples: number;
  /** Other samples not as the agent sent them. */
  otherSamples: number;
}

/** What the phones and the echo agent saw, over the frames the phones sent inside the window. */
export interface PhoneSideResult {
  callsRequested: number;
  /** Calls whose agent heard frames during the window. */
  callsLive: number;
  setupMs: number;
  windowMs: number;
  /** Frames the phones sent inside the window. */
  sent: number;
  /** Of those, frames the agent received, lost on the way, and received after a later frame. */
  atAgent: number;
  lostToAgent: number;
  outOfOrderAtAgent: number;
  duplicatesAtAgent: number;
  /** Of those, frames echoed back and played to the phone, lost on the way back, out of order. */
  echoed: number;
  lostEcho: number;
  outOfOrderEcho: number;
  /** Frames the phones did not send because their socket had 1 s queued (counted as lost). */
  droppedAtPhone: number;
  /** Phone send -> agent receive. */
  latencyMs: Percentiles;
  /** Phone send -> echo played to the phone. */
  roundTripMs: Percentiles;
  /** |inter-arrival - 20 ms| of frames played to the phone. */
  jitterMs: Percentiles;
  /** This process's own event-loop delay over the window: latency and jitter are stamped here, so they include it. */
  loopDelayMs: Percentiles;
  phonesErrors: string[];
  fidelity?: Fidelity;
}

export type PhonesMessage =
  | { type: 'progress'; text: string }
  | { type: 'window'; edge: 'start' | 'end' }
  | { type: 'result'; result: PhoneSideResult }
  | { type: 'error'; message: string };

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  /** The measured window on the target's monotonic clock (µs), which its CPU profile uses too. */
  windowUs: { from: number; to: number };
  /**
   * |interval - 20 ms| between consecutive frames the gateway hands to one phone's socket, over
   * every call, sampled one second in five: the pacing the gateway itself produces, before loopback
   * and the phones' process. Absent for the relay, which does not pace.
   */
  sendJitter?: Percentiles;
}

export type TargetMessage = { type: 'ready'; url: string } | { type: 'loop-delay'; delay: LoopDelay };

export type TargetCommand = { type: 'loop-delay-reset' } | { type: 'loop-delay-read' } | { type: 'stop' };

export const BENCH_API_KEY = 'bench-gateway-key-0123456789abcdef';

/** The runner to the load of `--webhooks`: connect phones, then send a burst of call events. */
export type WebhookLoadCommand =
  | { type: 'phones'; targetUrl: string; apiKey: string; phones: number }
  /** With `hold`, the receiver answers nothing until `release`. */
  | { type: 'burst'; calls: number; eventsPerCall: number; hold: boolean }
  | { type: 'release' }
  | { type: 'stop' };

export type WebhookLoadMessage =
  | { type: 'receiver'; url: string }
  | { type: 'phones-ready' }
  | { type: 'burst-sent'; at: number }
  | { type: 'burst-acked'; at: number }
  | { type: 'delivered'; count: number; duplicates: number; firstAt: number; lastAt: number }
  | { type: 'error'; message: string };
