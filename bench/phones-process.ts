import '../src/v8-tuning.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { epochNow, loadWav, pairDevice, readStamp } from '../src/simulator/index.js';
import { BYTES_PER_MS, ChunkedEcho, FidelityTrack } from './chunks.js';
import { GatewayPhone, RelayPhone } from './phones.js';
import type { Fidelity, Format, PhoneSideResult, PhonesMessage, PhonesStart } from './protocol.js';
import { codeOfMulaw, codeOfPcm, MULAW_CODE_BASE64_CHARS, Unwrapper } from './signal.js';
import { CallTrack, Samples } from './tracks.js';
import { api, pool } from './util.js';

/*
 * The load: N phones and the echo agent, in one process so that send and receive times share a
 * clock. Each frame's send time is recorded by index; the agent and the phone find a frame's index
 * in its stamp (raw) or in the code the audio carries (vendor: mu-law destroys the stamp).
 */

const send = (msg: PhonesMessage) => process.send?.(msg);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The index of a PCM frame: its stamp when it has one, else its code. */
function pcmIndex(frame: Buffer, unwrap: Unwrapper): number | null {
  const stamp = readStamp(frame);
  if (stamp) return stamp.seq;
  const code = codeOfPcm(frame);
  return code === null ? null : unwrap.next(code);
}

/**
 * The echo agent: sends every frame straight back, and notes when each arrived. With `chunkBytes`
 * (chunks.ts) it sends the same audio back in real-time chunks of that size instead, and notes what
 * it sent in `fidelity`, for the phone to compare with what it hears.
 */
function startAgent(tracks: CallTrack[], format: Format, chunkBytes: number | undefined, fidelity: FidelityTrack[]): Promise<WebSocketServer> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  server.on('connection', (ws, req) => {
    const phone = Number(new URL(req.url ?? '/', 'ws://agent').searchParams.get('phone'));
    const track = tracks[phone];
    if (!track) return ws.close(1008, 'unknown phone');
    const unwrap = new Unwrapper();
    let streamSid = '';
    const chunked = chunkBytes
      ? new ChunkedEcho(chunkBytes, format, (chunk) => {
          fidelity[phone]!.sent(chunk);
          if (format === 'vendor') ws.send(`{"event":"media","streamSid":"${streamSid}","media":{"payload":"${chunk.toString('base64')}"}}`);
          else ws.send(chunk, { binary: true });
        })
      : undefined;
    ws.on('close', () => chunked?.close());
    ws.on('message', (data, isBinary) => {
      const at = epochNow();
      const buf = data as Buffer;
      if (isBinary) {
        const index = pcmIndex(buf, unwrap);
        if (index !== null) track.atAgent(index, at);
        if (chunked) chunked.add(buf);
        else ws.send(buf, { binary: true });
        return;
      }
      if (format !== 'vendor') return;
      const msg = JSON.parse(buf.toString('utf8')) as { event?: string; streamSid?: string; media?: { payload?: string } };
      const payload = msg.media?.payload;
      if (msg.event !== 'media' || payload === undefined) return;
      // The load should cost as little as it can per message (its CPU shares the machine with the
      // target): only the bytes that carry the frame's code are decoded, and the echo is written as
      // a template, as the gateway writes its own (a streamSid is "MZ" and hex, a payload base64).
      const code = codeOfMulaw(Buffer.from(payload.slice(0, MULAW_CODE_BASE64_CHARS), 'base64'));
      if (code !== null) track.atAgent(unwrap.next(code), at);
      streamSid = msg.streamSid ?? '';
      if (chunked) chunked.add(Buffer.from(payload, 'base64'));
      else ws.send(`{"event":"media","streamSid":"${msg.streamSid}","media":{"payload":"${payload}"}}`);
    });
    ws.on('error', () => ws.terminate());
  });
  return new Promise((resolve, reject) => {
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

interface Load {
  dropped(): number;
  close(): Promise<void>;
}

/** The gateway phone `i` talks to: the only one, or one of several in turn. */
const nodeOf = (cfg: PhonesStart, i: number): string => cfg.targetUrls?.[i % cfg.targetUrls.length] ?? cfg.targetUrl;

/** What a phone does with audio it receives: note each frame's echo; with chunks, compare every sample with what the agent sent first. */
function heard(cfg: PhonesStart, fidelity: FidelityTrack, track: CallTrack, unwrap: Unwrapper): (data: Buffer) => void {
  if (!cfg.chunkBytes) return (frame) => track.echoed(pcmIndex(frame, unwrap), epochNow());
  return (data) => {
    const at = epochNow();
    fidelity.received(data, (frame) => track.echoed(pcmIndex(frame, unwrap), at));
  };
}

async function startGatewayLoad(cfg: PhonesStart, tracks: CallTrack[], fidelity: FidelityTrack[], agentUrl: string, errors: string[]): Promise<Load> {
  const pcm = loadWav(cfg.wavPath).data;
  const phones: GatewayPhone[] = [];
  const deviceIds: string[] = [];
  const indices = tracks.map((_, i) => i);
  await pool(indices, 8, async (i) => {
    const track = tracks[i]!;
    const unwrap = new Unwrapper();
    const target = nodeOf(cfg, i);
    const pairing = await api(target, cfg.apiKey, 'POST', '/v1/pairing', { publicUrl: target });
    const credentials = await pairDevice(target, { code: String(pairing['code']), name: `bench-${i}` });
    const phone = new GatewayPhone(target, credentials, pcm, track, heard(cfg, fidelity[i]!, track, unwrap));
    await phone.welcomed;
    phones[i] = phone;
    deviceIds[i] = credentials.deviceId;
  });
  send({ type: 'progress', text: `${phones.length} phones paired and connected` });
  await pool(indices, 8, async (i) => {
    try {
      await api(nodeOf(cfg, i), cfg.apiKey, 'POST', '/v1/calls', {
        deviceId: deviceIds[i],
        to: `+1555${String(i).padStart(7, '0')}`,
        stream: { url: `${agentUrl}/?phone=${i}`, format: cfg.format },
      });
    } catch (err) {
      errors.push((err as Error).message);
    }
  });
  return {
    dropped: () => phones.reduce((n, p) => n + p.framesDropped, 0),
    close: async () => phones.forEach((p) => p.close()),
  };
}

function startRelayLoad(cfg: PhonesStart, tracks: CallTrack[], fidelity: FidelityTrack[], agentUrl: string): Load {
  const pcm = loadWav(cfg.wavPath).data;
  const phones = tracks.map((track, i) => {
    const unwrap = new Unwrapper();
    const url = `${cfg.targetUrl}/?agent=${encodeURIComponent(`${agentUrl}/?phone=${i}`)}`;
    return new RelayPhone(url, pcm, track, heard(cfg, fidelity[i]!, track, unwrap));
  });
  return {
    dropped: () => phones.reduce((n, p) => n + p.framesDropped, 0),
    close: async () => phones.forEach((p) => p.close()),
  };
}

function summarize(cfg: PhonesStart, tracks: CallTrack[], from: number, to: number, setupMs: number, dropped: number, errors: string[]): Omit<PhoneSideResult, 'loopDelayMs'> {
  const latency = new Samples();
  const roundTrip = new Samples();
  const jitter = new Samples();
  const r = { sent: 0, atAgent: 0, lostToAgent: 0, outOfOrderAtAgent: 0, echoed: 0, lostEcho: 0, outOfOrderEcho: 0 };
  let callsLive = 0;
  let duplicates = 0;
  for (const t of tracks) {
    let live = false;
    duplicates += t.agentDuplicates;
    for (let i = 0; i < t.sentAt.length; i++) {
      const sentAt = t.sentAt.get(i);
      if (!(sentAt >= from && sentAt <= to)) continue;
      r.sent++;
      const agentAt = t.agentAt.get(i);
      if (Number.isNaN(agentAt)) r.lostToAgent++;
      else {
        live = true;
        r.atAgent++;
        latency.push(agentAt - sentAt);
        if (t.agentLate.get(i) === 1) r.outOfOrderAtAgent++;
      }
      const echoAt = t.echoAt.get(i);
      if (Number.isNaN(echoAt)) r.lostEcho++;
      else {
        r.echoed++;
        roundTrip.push(echoAt - sentAt);
        if (t.echoLate.get(i) === 1) r.outOfOrderEcho++;
      }
    }
    if (live) callsLive++;
    for (let i = 1; i < t.arrivals.length; i++) {
      const a = t.arrivals.get(i - 1);
      const b = t.arrivals.get(i);
      if (a >= from && b <= to) jitter.push(Math.abs(b - a - 20));
    }
  }
  return {
    callsRequested: cfg.calls,
    callsLive,
    setupMs,
    windowMs: to - from,
    ...r,
    duplicatesAtAgent: duplicates,
    droppedAtPhone: dropped,
    latencyMs: latency.percentiles(),
    roundTripMs: roundTrip.percentiles(),
    jitterMs: jitter.percentiles(),
    phonesErrors: errors.slice(0, 10),
  };
}

async function run(cfg: PhonesStart): Promise<void> {
  const began = performance.now();
  const tracks = Array.from({ length: cfg.calls }, () => new CallTrack());
  const errors: string[] = [];
  // The relay forwards raw frames only: its agent speaks raw.
  const format: Format = cfg.mode === 'relay' ? 'raw' : cfg.format;
  const fidelity = tracks.map(() => new FidelityTrack(format));
  const agent = await startAgent(tracks, format, cfg.chunkBytes, fidelity);
  const agentUrl = `ws://127.0.0.1:${(agent.address() as AddressInfo).port}`;
  const load = cfg.mode === 'gateway' ? await startGatewayLoad(cfg, tracks, fidelity, agentUrl, errors) : startRelayLoad(cfg, tracks, fidelity, agentUrl);
  const heardSoFar = () => fidelity.reduce((sum, f) => ({ speech: sum.speech + f.matched, inserted: sum.inserted + f.inserted, other: sum.other + f.other }), { speech: 0, inserted: 0, other: 0 });

  // Every call live both ways, or the setup deadline (counted once the calls are placed).
  const deadline = performance.now() + 20_000 + 20 * cfg.calls;
  const flowing = () => tracks.filter((t) => t.agentMax >= 0 && t.echoMax >= 0).length;
  while (flowing() < cfg.calls && performance.now() < deadline) await sleep(100);
  const setupMs = performance.now() - began;
  send({ type: 'progress', text: `${flowing()}/${cfg.calls} calls streaming after ${(setupMs / 1000).toFixed(1)} s` });

  await sleep(cfg.warmupMs);
  const droppedBefore = load.dropped();
  // The same resolution and reading as the target's (loop-delay.ts): what exceeds the timer interval.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const from = epochNow();
  const heardBefore = heardSoFar();
  send({ type: 'window', edge: 'start' });
  await sleep(cfg.seconds * 1000);
  const to = epochNow();
  const heardAfter = heardSoFar();
  loopDelay.disable();
  send({ type: 'window', edge: 'end' });
  const dropped = load.dropped() - droppedBefore;
  // Frames sent just before the end are still on their way.
  await sleep(cfg.graceMs);
  await load.close();
  const delayMs = (ns: number) => Math.max(0, ns / 1e6 - 5);
  const loopDelayMs = { p50: delayMs(loopDelay.percentile(50)), p99: delayMs(loopDelay.percentile(99)), max: delayMs(loopDelay.max) };
  const fidelityResult: Fidelity | undefined = cfg.chunkBytes
    ? {
        chunkBytes: cfg.chunkBytes,
        chunkMs: cfg.chunkBytes / BYTES_PER_MS[format],
        speechSamples: heardAfter.speech - heardBefore.speech,
        insertedSamples: heardAfter.inserted - heardBefore.inserted,
        otherSamples: heardAfter.other - heardBefore.other,
      }
    : undefined;
  const result = { ...summarize(cfg, tracks, from, to, setupMs, dropped, errors), loopDelayMs, ...(fidelityResult ? { fidelity: fidelityResult } : {}) };
  for (const client of agent.clients) client.terminate();
  await new Promise<void>((resolve) => agent.close(() => resolve()));
  send({ type: 'result', result });
}

process.once('message', (msg: unknown) => {
  run(msg as PhonesStart).then(
    () => process.disconnect(),
    (err: unknown) => {
      send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.disconnect();
    },
  );
});
process.on('disconnect', () => setTimeout(() => process.exit(0), 200).unref());
