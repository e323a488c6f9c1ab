import { describe, expect, it } from 'vitest';
import { MulawUpsampler } from '../../src/audio/index.js';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import { callInState, testScope } from '../helpers/phones.js';
import { agent, placeCall, samples, type PeerSocket } from './helpers.js';

const t = testScope();

/** Nominal gaps (ms) beyond which a chunk counts as sent after a pause of the agent: its ±10 ms jitter and a loaded machine's timer lateness. */
const LATE_MS = 30;
/** Speech, a pause, speech: the pause is the agent's, and a chunk after it must still play. */
const SPEECH_MS = 700;
const PAUSE_MS = 400;

interface Sent {
  /** Where the chunk starts in the 16 kHz samples the phone should hear. */
  sample: number;
  /** How much later than its nominal gap after the chunk before it the chunk was sent (ms), by the agent's own clock. */
  late: number;
}

/**
 * Sends `chunks` from the agent in real time: chunk k at its audio's time ±10 ms (a seeded
 * jitter), with a pause of PAUSE_MS between the two halves. Returns when each chunk was sent,
 * relative to the nominal rhythm.
 */
async function streamInRealTime(chunks: { payload: () => void; ms: number; samples: number }[], seed: number): Promise<Sent[]> {
  let x = seed;
  const jitter = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return (x / 2147483648) * 20 - 10;
  };
  const sent: Sent[] = [];
  const start = performance.now();
  let audioMs = 0;
  let sample = 0;
  let lastAt = 0;
  let lastNominal = 0;
  const half = Math.ceil(chunks.length / 2);
  for (let k = 0; k < chunks.length; k++) {
    if (k === half) audioMs += PAUSE_MS;
    const nominal = audioMs;
    const due = start + Math.max(0, nominal + jitter());
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const at = performance.now() - start;
    chunks[k]!.payload();
    sent.push({ sample, late: k === 0 ? 0 : at - lastAt - (nominal - lastNominal) });
    lastAt = at;
    lastNominal = nominal;
    audioMs += chunks[k]!.ms;
    sample += chunks[k]!.samples;
  }
  return sent;
}

/**
 * Checks what the phone heard against what the agent sent: every sample, in order, and zero
 * samples (inserted silence) only in the padding of a frame where the agent paused or was late.
 */
async function expectContiguous(phone: PhoneSimulator, want: number[], sent: Sent[]): Promise<void> {
  await phone.waitFor((s) => countNonZero(s.receivedAudio()) >= want.length, 10_000);
  const got = samples(phone.receivedAudio());
  let first = got.findIndex((v) => v !== 0);
  expect(first).toBeGreaterThanOrEqual(0);
  // The phone's frames of silence before the agent spoke are none of its audio.
  first -= first % 320;
  const heard = got.slice(first);
  const nonZero = heard.filter((v) => v !== 0);
  expect(nonZero.length).toBe(want.length);
  expect(nonZero).toEqual(want);
  // Where the zeros are: runs shorter than a frame, each where a chunk came after a pause or late.
  const allowed = new Set(sent.filter((s, k) => k > 0 && s.late > LATE_MS - 20).map((s) => s.sample));
  const paused = sent.filter((s, k) => k === Math.ceil(sent.length / 2) || (k > 0 && s.late > LATE_MS - 20)).length;
  let inserted = 0;
  let heardSamples = 0;
  const runs: { at: number; length: number }[] = [];
  for (let i = 0; i < heard.length; i++) {
    if (heard[i] !== 0) {
      heardSamples += 1;
      continue;
    }
    if (heardSamples >= want.length) break;
    const run = runs.at(-1);
    if (run && run.at === heardSamples) run.length += 1;
    else runs.push({ at: heardSamples, length: 1 });
    inserted += 1;
  }
  for (const run of runs) {
    expect(allowed.has(run.at) || sent[Math.ceil(sent.length / 2)]!.sample === run.at, `${run.length} zero samples inserted before sample ${run.at}`).toBe(true);
    expect(run.length).toBeLessThan(320);
  }
  expect(runs.length).toBeLessThanOrEqual(paused);
  expect(inserted).toBeLessThan(320 * Math.max(1, paused));
}

function countNonZero(pcm: Buffer): number {
  let n = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) if (pcm.readInt16LE(i) !== 0) n += 1;
  return n;
}

/** s16le speech that never holds a zero sample. */
function speech(count: number): Buffer {
  const pcm = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) pcm.writeInt16LE(((i * 37) % 30000) + 1, i * 2);
  return pcm;
}

/** 8 kHz mu-law that never decodes to zero, nor interpolates to it: positive samples only (0x80 to 0xFE). */
function mulawSpeech(count: number): Buffer {
  const mu = Buffer.alloc(count);
  for (let i = 0; i < count; i++) mu[i] = 0x80 + ((i * 7) % 0x7f);
  return mu;
}

async function liveCall(format: 'raw' | 'vendor'): Promise<{ phone: PhoneSimulator; conn: PeerSocket }> {
  const g = await t.gateway();
  const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
  const a = await agent(t);
  const { call } = await placeCall(g, phone, { stream: { url: a.url, format } });
  const conn = await a.connection();
  await conn.message((m) => m.type === 'start' || m.event === 'start');
  await callInState(g, call.id, 'active');
  return { phone, conn };
}

const RAW_RHYTHMS = [
  { name: '1001 bytes of PCM', bytes: 1001 },
  { name: '37 ms', bytes: 37 * 32 },
  { name: '250 ms', bytes: 250 * 32 },
  { name: "758 bytes of mu-law's length (94.75 ms)", bytes: 758 * 4 },
  { name: 'whole frames', bytes: 640 },
];

const VENDOR_RHYTHMS = [
  { name: '758 bytes of mu-law (Pipecat)', bytes: 758 },
  { name: '250 ms (the ElevenLabs sample)', bytes: 2000 },
  { name: '37 ms', bytes: 296 },
  { name: 'whole frames', bytes: 160 },
];

describe('an agent streaming in real time in chunks of any size: every sample reaches the phone, no silence inserted', () => {
  for (const [i, rhythm] of RAW_RHYTHMS.entries()) {
    it(`raw, chunks of ${rhythm.name}, ±10 ms jitter, with a pause`, async () => {
      const { phone, conn } = await liveCall('raw');
      const total = Math.round((2 * SPEECH_MS * 32) / rhythm.bytes) * rhythm.bytes;
      const pcm = speech(Math.floor(total / 2) + (total % 2));
      const chunks = [];
      for (let at = 0; at < total; at += rhythm.bytes) {
        const piece = pcm.subarray(at, Math.min(total, at + rhythm.bytes));
        chunks.push({ payload: () => conn.sendBinary(piece), ms: piece.length / 32, samples: piece.length / 2 });
      }
      const sent = await streamInRealTime(chunks, 11 + i);
      // An odd total leaves half a sample, which waits for its other half (never played).
      const want = samples(pcm.subarray(0, total - (total % 2)));
      // Chunk starts in samples: a chunk of odd bytes starts mid-sample, the sample it completes being its first.
      for (const s of sent) s.sample = Math.floor(s.sample);
      await expectContiguous(phone, want, sent);
    });
  }

  for (const [i, rhythm] of VENDOR_RHYTHMS.entries()) {
    it(`vendor, chunks of ${rhythm.name}, ±10 ms jitter, with a pause`, async () => {
      const { phone, conn } = await liveCall('vendor');
      const mu = mulawSpeech(Math.round((2 * SPEECH_MS * 8) / rhythm.bytes) * rhythm.bytes);
      const chunks = [];
      for (let at = 0; at < mu.length; at += rhythm.bytes) {
        const piece = mu.subarray(at, at + rhythm.bytes);
        chunks.push({ payload: () => conn.send({ event: 'media', streamSid: 'MZ', media: { payload: piece.toString('base64') } }), ms: piece.length / 8, samples: piece.length * 2 });
      }
      const sent = await streamInRealTime(chunks, 21 + i);
      // The gateway's one upsampler over the whole stream: chunking does not change it.
      const want = samples(new MulawUpsampler().push(mu));
      await expectContiguous(phone, want, sent);
    });
  }
});
