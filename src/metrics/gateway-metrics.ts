import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AssistantService } from '../assistant/index.js';
import type { AudioDrops } from '../audio/index.js';
import { AUDIO_DROP_REASONS } from '../audio/index.js';
import type { CallStateCounts } from '../calls/index.js';
import { CALL_STATES } from '../calls/index.js';
import type { MediaRouter } from '../media/index.js';
import type { PhoneHub } from '../phones/index.js';
import type { StreamManager } from '../streams/index.js';
import type { WebhookDispatcher } from '../webhooks/index.js';
import { ATTEMPT_OUTCOMES } from '../webhooks/index.js';
import { processMetrics } from './process.js';

/** What the metrics read, each when it is scraped (the phones' latency is the one thing observed as it happens). */
export interface MetricSources {
  callStates: Pick<CallStateCounts, 'snapshot'>;
  streams: Pick<StreamManager, 'statuses'>;
  assistant: Pick<AssistantService, 'statuses'>;
  media: Pick<MediaRouter, 'framesCounted'> & { drops: AudioDrops };
  webhooks: Pick<WebhookDispatcher, 'attemptCounts' | 'queueDepth'>;
  hub: Pick<PhoneHub, 'connectedCount' | 'on' | 'off'>;
}

/** Statuses of a stream or an assistant session whose call is in progress (ended and error ones are kept only a while). */
const IN_PROGRESS = ['waiting', 'connecting', 'live'] as const;

/** Up to the pong timeout (10 s), past which a phone is dropped. */
const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Exposition {
  contentType: string;
  text: string;
}

/**
 * The metrics of one gateway, in a registry of its own (a process may run several gateways, as the
 * tests do). Values are read from the domain when scraped, so nothing here runs per audio frame.
 */
export class GatewayMetrics {
  private readonly registry = new Registry();
  private merged: Registry | undefined;
  private readonly latency: Histogram;
  private readonly onLatency = (_deviceId: string, rttMs: number): void => this.latency.observe(rttMs / 1000);

  constructor(private readonly sources: MetricSources) {
    const registers = [this.registry];
    const { callStates, streams, assistant, media, webhooks, hub } = sources;

    labelled('gauge', registers, 'voice_gateway_calls', 'Calls in the call log, by state.', 'state', CALL_STATES, () => callStates.snapshot());
    labelled('gauge', registers, 'voice_gateway_agent_streams', 'Agent streams of calls in progress, by status (live: the agent socket is open).', 'status', IN_PROGRESS, () => countOf(streams.statuses()));
    labelled('gauge', registers, 'voice_gateway_assistant_sessions', 'Assistant sessions of calls in progress, by status (live: bridged to the call).', 'status', IN_PROGRESS, () => countOf(assistant.statuses()));

    counter(registers, 'voice_gateway_phone_audio_frames_received_total', '20 ms frames of call audio received from phones and taken by their calls.', () => media.framesCounted().fromPhones);
    counter(registers, 'voice_gateway_phone_audio_frames_sent_total', '20 ms frames of call audio sent to phones.', () => media.framesCounted().toPhones);
    labelled('counter', registers, 'voice_gateway_audio_frames_dropped_total', 'Call audio the gateway dropped, in 20 ms frames, by reason.', 'reason', AUDIO_DROP_REASONS, () => media.drops.frames());

    labelled('counter', registers, 'voice_gateway_webhook_attempts_total', 'Webhook attempts, by outcome.', 'outcome', ATTEMPT_OUTCOMES, () => webhooks.attemptCounts());
    labelled('gauge', registers, 'voice_gateway_webhook_queue_jobs', 'Webhook jobs not finished, by state (their sum is the queue depth).', 'state', ['due', 'scheduled', 'in_flight'] as const, () => {
      const { due, scheduled, inFlight } = webhooks.queueDepth();
      return { due, scheduled, in_flight: inFlight };
    });

    new Gauge({
      name: 'voice_gateway_phones_connected',
      help: 'Phones whose socket to the gateway is open.',
      registers,
      collect() {
        this.set(hub.connectedCount());
      },
    });
    this.latency = new Histogram({
      name: 'voice_gateway_phone_latency_seconds',
      help: 'Round trip of the gateway\'s ping to a phone (the Device\'s latencyMs), one observation per pong, all phones together.',
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    hub.on('latency', this.onLatency);
  }

  /** The text format of Prometheus: this gateway's metrics and the process's. */
  async exposition(): Promise<Exposition> {
    this.merged ??= Registry.merge([this.registry, processMetrics()]);
    return { contentType: this.merged.contentType, text: await this.merged.metrics() };
  }

  close(): void {
    this.sources.hub.off('latency', this.onLatency);
  }
}

function countOf<S extends string>(statuses: Iterable<S>): Partial<Record<S, number>> {
  const counts: Partial<Record<S, number>> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

type Read<L extends string> = () => Partial<Record<L, number>>;

/**
 * A metric with one series per label value, all present (0 when the source has none). A counter's
 * total is kept by the domain as a plain integer and copied in when scraped.
 */
function labelled<L extends string>(type: 'gauge' | 'counter', registers: Registry[], name: string, help: string, label: string, values: readonly L[], read: Read<L>): void {
  const config = { name, help, labelNames: [label], registers };
  const each = (write: (labels: Record<string, string>, value: number) => void): void => {
    const now = read();
    for (const value of values) write({ [label]: value }, now[value] ?? 0);
  };
  if (type === 'gauge') {
    new Gauge({
      ...config,
      collect() {
        each((labels, value) => this.set(labels, value));
      },
    });
  } else {
    new Counter({
      ...config,
      collect() {
        this.reset();
        each((labels, value) => this.inc(labels, value));
      },
    });
  }
}

function counter(registers: Registry[], name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}
