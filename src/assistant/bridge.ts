import { Resampler, SAMPLE_RATE } from '../audio/index.js';
import { plainModelFailure, type ModelFailureKind } from './connection.js';
import type { Call, TranscriptRole } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { CallAudio, PlayoutSource } from '../media/index.js';
import type { OutboundPolicy } from '../outbound/index.js';
import type { AgentSettings } from '../settings/index.js';
import type { PingTimings } from '../socket-guard.js';
import { statusOf, type BridgeFailure, type BridgePhase, type Lifecycle } from './bridge-life.js';
import type { AssistantStatus } from './model.js';
import {
  END_CALL_TOOL,
  REALTIME_SAMPLE_RATE,
  RECORD_MESSAGE_TOOL,
  REPORT_OUTCOME_TOOL,
  RealtimeClient,
  buildSessionUpdate,
  type RealtimeAudioChunk,
  type RealtimeClose,
  type RealtimeError,
  type CallTask,
  type RealtimeFunctionCall,
  type ResumedConversation,
} from './realtime/index.js';
import { failureTone } from './tones.js';
import { cleanMessage, cleanOutcome, type RecordedMessage, type ReportedOutcome } from './tool-results.js';

/** A task for the call, with the voice it may ask for. */
export interface BridgeTask extends CallTask {
  voice?: string | undefined;
}

export interface BridgeOptions {
  call: Call;
  apiKey: string;
  url: string;
  model: string;
  agent: AgentSettings;
  log: Logger;
  /** How long the model may take to confirm the session, and to start its first answer. */
  responseTimeoutMs: number;
  connectTimeoutMs?: number;
  /** How often the model's socket is pinged and how long it may take to answer (default: as agent sockets). */
  ping?: PingTimings;
  /** A call taken over from an earlier session (another node's, or before a restart): the new one goes on from there. */
  resumed?: ResumedConversation;
  /** Which addresses the model's endpoint may resolve to. */
  outbound: OutboundPolicy;
  /** How long the goodbye (or the failure tone) may take to play before the gateway hangs up anyway. */
  drainTimeoutMs?: number;
  /** The bridge failed (its `failure` says why): called once, as it moves to `failed` or to draining with the failure tone. */
  failed(): void;
  transcript(role: TranscriptRole, text: string): void;
  message(message: RecordedMessage): Promise<void>;
  /** The call has a task: the assistant works on it and reports through `outcome` instead of taking a message. */
  task?: BridgeTask | undefined;
  outcome(outcome: ReportedOutcome): Promise<void>;
  /** The assistant is done with the call (end_call, or a failure while the caller was on the line). */
  hangup(reason: string): void;
}

/** 16 kHz mono s16le: 32 bytes per millisecond. */
const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
const SOURCE_ID = 'assistant';
const END_MARK = 'assistant:end';
const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

interface QueuedItem {
  itemId: string;
  contentIndex: number;
  /** Offset of its first byte in everything pushed to the play-out source. */
  start: number;
}

/**
 * One call's assistant: a Realtime session bridged to the call's audio. `connect()` opens the model
 * socket and waits for the session to be confirmed; `attach()` (once the call's audio has started)
 * streams the caller up at 24 kHz, plays the model down at 16 kHz, and asks the model to greet.
 */
export class AssistantBridge {
  private life: Lifecycle = { phase: 'idle' };
  private readonly abort = new AbortController();
  private readonly up = new Resampler(SAMPLE_RATE, REALTIME_SAMPLE_RATE);
  private readonly down = new Resampler(REALTIME_SAMPLE_RATE, SAMPLE_RATE);
  private pushed = 0;
  private items: QueuedItem[] = [];
  private readonly cut = new Set<string>();
  private responseTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: BridgeOptions) {}

  get phase(): BridgePhase {
    return this.life.phase;
  }

  /** Read from where the bridge is in its life, never stored beside it. */
  get status(): AssistantStatus {
    return statusOf(this.life);
  }

  /** Why it failed, read from its life: undefined unless it has. */
  get failure(): BridgeFailure | undefined {
    const life = this.life;
    if (life.phase === 'failed') return { error: life.error, kind: life.kind };
    return life.phase === 'draining' ? life.failure : undefined;
  }

  private get logCtx(): { callId: string; deviceId: string } {
    return { callId: this.o.call.id, deviceId: this.o.call.deviceId };
  }

  /** The model client of a bridge that has one open. */
  private get client(): RealtimeClient | undefined {
    const life = this.life;
    return life.phase === 'connecting' || life.phase === 'ready' || life.phase === 'live' || life.phase === 'draining' ? life.client : undefined;
  }

  /** Opens the model socket; false (with status `error`) when that failed. */
  async connect(): Promise<boolean> {
    if (this.life.phase !== 'idle') return false;
    this.life = { phase: 'connecting' };
    let client: RealtimeClient;
    try {
      client = await RealtimeClient.connect({
        url: this.o.url,
        model: this.o.model,
        apiKey: this.o.apiKey,
        sessionUpdate: buildSessionUpdate({
          ownerName: this.o.agent.ownerName,
          about: this.o.agent.about,
          voice: this.o.task?.voice ?? this.o.agent.voice,
          ...(this.o.task ? { task: { instructions: this.o.task.instructions, hangUpWhenDone: this.o.task.hangUpWhenDone } } : {}),
          ...(this.o.resumed ? { resumed: this.o.resumed } : {}),
        }),
        signal: this.abort.signal,
        outbound: this.o.outbound,
        ...(this.o.connectTimeoutMs ? { connectTimeoutMs: this.o.connectTimeoutMs } : {}),
        ...(this.o.ping ? { ping: this.o.ping } : {}),
      });
    } catch (err) {
      if (this.life.phase !== 'connecting') return false;
      // Plain words for the operator (issue 26); the raw error goes to the log.
      const failure = plainModelFailure(err, this.o.url);
      this.o.log.warn({ ...this.logCtx, err, kind: failure.kind }, 'assistant could not open the model session');
      this.fail(failure.message, failure.kind);
      return false;
    }
    if (this.life.phase !== 'connecting') {
      void client.close();
      return false;
    }
    this.life = { phase: 'connecting', client };
    client.on('error', (err) => this.onError(err));
    client.on('close', (close) => this.onClose(close));
    const confirmed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        client.off('sessionUpdated', done);
        resolve(false);
      }, this.o.responseTimeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      client.once('sessionUpdated', done);
      client.once('close', () => done());
    });
    if (this.life.phase !== 'connecting') return false;
    if (!confirmed) {
      this.fail(`The assistant model did not confirm the session within ${this.o.responseTimeoutMs} ms`);
      return false;
    }
    this.life = { phase: 'ready', client };
    client.on('audio', (chunk) => this.onAudio(chunk));
    client.on('speechStarted', () => this.onSpeechStarted());
    client.on('callerTranscript', (t) => this.o.transcript('caller', t));
    client.on('agentTranscript', (t) => {
      this.answered();
      this.o.transcript('agent', t);
    });
    client.on('responseDone', () => this.answered());
    client.on('functionCall', (call) => void this.onFunctionCall(call));
    this.o.log.info({ ...this.logCtx, model: this.o.model }, 'assistant model connected');
    return true;
  }

  /** Bridges the call's audio and lets the assistant greet first (a `ready` bridge only). */
  attach(audio: CallAudio): void {
    const life = this.life;
    if (life.phase !== 'ready') return;
    const { client } = life;
    const source = audio.source(SOURCE_ID, { markPlayed: (name) => this.onMark(name) });
    const unlisten = audio.listen((frame) => client.appendAudio(this.up.process(frame)));
    this.life = { phase: 'live', client, source, unlisten };
    client.createResponse();
    this.responseTimer = setTimeout(
      () => this.fail(`The assistant model did not answer within ${this.o.responseTimeoutMs} ms`),
      this.o.responseTimeoutMs,
    );
    this.o.log.info(this.logCtx, 'assistant live on the call');
  }

  /** Hands the call back or follows its end: the model socket closes, the call is left alone. */
  stop(): void {
    const life = this.life;
    if (life.phase === 'stopped') return;
    const client = this.client;
    this.life = { phase: 'stopped' };
    this.abort.abort();
    this.clearTimers();
    if (life.phase === 'live') life.unlisten();
    if (life.phase === 'live' || life.phase === 'draining') life.source?.remove();
    void client?.close();
  }

  private clearTimers(): void {
    clearTimeout(this.responseTimer);
    clearTimeout(this.drainTimer);
  }

  private answered(): void {
    clearTimeout(this.responseTimer);
    this.responseTimer = undefined;
  }

  private onAudio(chunk: RealtimeAudioChunk): void {
    this.answered();
    const life = this.life;
    if (life.phase !== 'live' || this.cut.has(chunk.itemId)) return;
    const pcm = this.down.process(chunk.pcm);
    if (pcm.length === 0) return;
    const last = this.items.at(-1);
    if (!last || last.itemId !== chunk.itemId || last.contentIndex !== chunk.contentIndex) {
      this.items.push({ itemId: chunk.itemId, contentIndex: chunk.contentIndex, start: this.pushed });
    }
    this.pushed += pcm.length;
    life.source.push(pcm);
    // Items the caller has heard to the end are of no use for truncation any more.
    const played = this.pushed - life.source.queuedBytes();
    while (this.items.length > 1 && this.items[1]!.start <= played) this.items.shift();
  }

  /** Barge-in: drop what the caller has not heard and tell the model where it was cut. */
  private onSpeechStarted(): void {
    const life = this.life;
    if (life.phase !== 'live') return;
    const pending = life.source.queuedBytes();
    if (pending === 0) return;
    const played = this.pushed - pending;
    let current: QueuedItem | undefined;
    for (const item of this.items) {
      if (item.start <= played) current = item;
      else this.cut.add(item.itemId);
    }
    life.source.clear();
    this.pushed = played;
    this.items = [];
    if (!current) return;
    this.cut.add(current.itemId);
    const audioEndMs = Math.floor((played - current.start) / BYTES_PER_MS);
    life.client.truncate(current.itemId, current.contentIndex, audioEndMs);
    this.o.log.debug({ ...this.logCtx, itemId: current.itemId, audioEndMs }, 'assistant interrupted by the caller');
  }

  private async onFunctionCall(call: RealtimeFunctionCall): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.answered();
    if (call.name === RECORD_MESSAGE_TOOL) {
      await this.saveAndGoOn(client, call.callId, () => this.o.message(cleanMessage(call.arguments)), { logged: 'could not store the assistant message', told: 'The message could not be saved.' });
    } else if (call.name === REPORT_OUTCOME_TOOL && this.o.task) {
      await this.saveAndGoOn(client, call.callId, () => this.o.outcome(cleanOutcome(call.arguments)), { logged: 'could not store the outcome of the task', told: 'The outcome could not be saved.' });
    } else if (call.name === END_CALL_TOOL && (!this.o.task || this.o.task.hangUpWhenDone)) {
      client.sendFunctionOutput(call.callId, { ok: true });
      this.finish('the assistant ended the call');
    } else {
      client.sendFunctionOutput(call.callId, { ok: false, error: `Unknown function ${call.name}` });
      client.createResponse();
    }
  }

  /** Stores what a tool call gave (a message, an outcome), tells the model whether it was saved, and lets it go on. */
  private async saveAndGoOn(client: RealtimeClient, callId: string, save: () => Promise<void>, failed: { logged: string; told: string }): Promise<void> {
    let output: Record<string, unknown>;
    try {
      await save();
      output = { ok: true, saved: true };
    } catch (err) {
      this.o.log.error({ ...this.logCtx, err }, failed.logged);
      output = { ok: false, error: failed.told };
    }
    if (this.life.phase === 'stopped') return;
    client.sendFunctionOutput(callId, output);
    client.createResponse();
  }

  /** Hangs up once what is queued (the goodbye, or the failure tone) has been played. */
  private finish(reason: string): void {
    const life = this.life;
    if (life.phase !== 'live' && life.phase !== 'ready') return;
    const source = life.phase === 'live' ? life.source : undefined;
    if (life.phase === 'live') life.unlisten();
    this.drain(reason, source, this.client);
  }

  /**
   * A session that could not start on a call that is already live (one taken over, or answered
   * while the model was dialled): the caller hears the failure tone, then the gateway hangs up, as
   * when a live session fails — never silence.
   */
  failOnLiveCall(audio: CallAudio): void {
    const life = this.life;
    if (life.phase !== 'failed') return;
    const source = audio.source(SOURCE_ID, { markPlayed: (name) => this.onMark(name) });
    source.push(failureTone());
    this.drain(`the assistant failed: ${life.error}`, source, undefined, { error: life.error, kind: life.kind });
  }

  /** Hangs up once `source` has played what it holds (at once without one, at the latest after the drain timeout). */
  private drain(reason: string, source: PlayoutSource | undefined, client: RealtimeClient | undefined, failure?: BridgeFailure): void {
    let hungUp = false;
    const hangup = (): void => {
      if (hungUp) return;
      hungUp = true;
      clearTimeout(this.drainTimer);
      this.o.hangup(reason);
    };
    this.life = { phase: 'draining', client, source, hangup, ...(failure ? { failure } : {}) };
    this.drainTimer = setTimeout(hangup, this.o.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
    if (source) source.mark(END_MARK);
    else hangup();
  }

  private onMark(name: string): void {
    if (name === END_MARK && this.life.phase === 'draining') this.life.hangup();
  }

  private onError(err: RealtimeError): void {
    if (err.fatal) {
      this.fail(err.message);
      return;
    }
    this.o.log.warn({ ...this.logCtx, code: err.code, error: err.message }, 'assistant model reported an error');
  }

  private onClose(close: RealtimeClose): void {
    const phase = this.life.phase;
    if (phase !== 'connecting' && phase !== 'ready' && phase !== 'live') return;
    this.fail(`The assistant model closed the connection (code ${close.code}${close.reason ? `: ${close.reason}` : ''})`);
  }

  /**
   * Status `error`; the model socket closes. While the call still rings nothing else happens (it
   * keeps ringing for a person); on a live call the caller hears the failure tone, then the
   * gateway hangs up.
   */
  private fail(error: string, kind: ModelFailureKind = 'other'): void {
    const life = this.life;
    if (life.phase === 'stopped' || life.phase === 'failed' || (life.phase === 'draining' && life.failure)) return;
    this.o.log.warn({ ...this.logCtx, error }, 'assistant failed');
    this.clearTimers();
    this.abort.abort();
    void this.client?.close();
    const failure = { error, kind };
    if (life.phase === 'live') {
      life.source.clear();
      life.source.push(failureTone());
      life.unlisten();
      this.drain(`the assistant failed: ${error}`, life.source, undefined, failure);
    } else if (life.phase === 'draining') {
      this.life = { ...life, client: undefined, failure };
    } else {
      this.life = { phase: 'failed', ...failure };
    }
    this.o.failed();
  }
}
