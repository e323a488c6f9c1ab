import { describe, expect, it } from 'vitest';
import { FRAME_BYTES, MulawUpsampler, pcm16kToMulaw8k } from '../audio/index.js';
import { codecFor, MAX_MARK_NAME, RawAgentCodec, RawCodec, TWILIO_HINT, TwilioCodec, type Decoded } from './index.js';

const info = { callId: 'call_1', direction: 'outgoing', remoteNumber: '+15550100', deviceId: 'phone-1' };
const text = (value: unknown): Buffer => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

/** A frame whose every sample is `value`. */
function constant(value: number): Buffer {
  const b = Buffer.alloc(FRAME_BYTES);
  for (let i = 0; i < FRAME_BYTES; i += 2) b.writeInt16LE(value, i);
  return b;
}

/** 160 bytes of mu-law 0xce (1000 after averaging) in base64: 53 groups of three bytes, and one more. */
const MULAW_1000_BASE64 = `${'zs7O'.repeat(53)}zg==`;

describe('codecFor', () => {
  it('picks the codec of each stream format', () => {
    expect(codecFor('raw')).toBeInstanceOf(RawCodec);
    expect(codecFor('vendor')).toBeInstanceOf(TwilioCodec);
  });
});

describe('RawCodec', () => {
  it('writes the start message (parameters merged in before format) and the stop', () => {
    const codec = new RawCodec();
    expect(codec.start({ ...info, parameters: { tenant: 'acme' } })).toEqual([
      '{"type":"start","callId":"call_1","direction":"outgoing","remoteNumber":"+15550100","deviceId":"phone-1","tenant":"acme","format":{"encoding":"pcm_s16le","sampleRate":16000,"channels":1,"frameMs":20}}',
    ]);
    expect(codec.stop()).toBe('{"type":"stop","callId":"call_1"}');
    expect(new RawCodec().start(info)[0]).toBe(
      '{"type":"start","callId":"call_1","direction":"outgoing","remoteNumber":"+15550100","deviceId":"phone-1","format":{"encoding":"pcm_s16le","sampleRate":16000,"channels":1,"frameMs":20}}',
    );
  });

  it('round-trips audio unchanged, both ways, and has no marks nor keypad messages', () => {
    const codec = new RawCodec();
    const frame = constant(-1234);
    expect(codec.audio(frame)).toBe(frame);
    const odd = Buffer.from([1, 2, 3]);
    expect(codec.decode(odd, true)).toEqual({ kind: 'audio', pcm: odd });
    expect(codec.markPlayed('m')).toBeNull();
    expect(codec.dtmf()).toBeNull();
  });

  it('decodes clear, and says why anything else is ignored, with a hint for Twilio JSON', () => {
    const codec = new RawCodec();
    const cases: [Buffer, Decoded][] = [
      [text({ type: 'clear' }), { kind: 'clear' }],
      [text({ type: 'clear', extra: 1 }), { kind: 'clear' }],
      [text('{nope'), { kind: 'ignored', why: 'not JSON' }],
      [text('42'), { kind: 'ignored', why: 'not a JSON object' }],
      [text('null'), { kind: 'ignored', why: 'not a JSON object' }],
      [text({ type: 'mark' }), { kind: 'ignored', why: 'unknown raw message type mark' }],
      [text({}), { kind: 'ignored', why: 'unknown raw message type undefined' }],
      [text({ event: 'media', media: { payload: '' } }), { kind: 'ignored', why: 'Twilio Media Streams event media', hint: TWILIO_HINT }],
      [text({ event: 'somethingelse' }), { kind: 'ignored', why: 'unknown raw message type undefined' }],
    ];
    for (const [data, decoded] of cases) expect(codec.decode(data, false), data.toString()).toEqual(decoded);
  });
});

describe('RawAgentCodec (agent streams in the raw format)', () => {
  it('is the codec of raw agent streams; the media socket keeps the plain raw format', () => {
    expect(codecFor('raw')).toBeInstanceOf(RawAgentCodec);
    expect(new RawCodec().decode(text({ type: 'killAudio' }), false)).toEqual({ kind: 'ignored', why: 'unknown raw message type killAudio' });
  });

  it("decodes marks in both shapes, and jambonz's killAudio as clear and disconnect as close", () => {
    const codec = new RawAgentCodec();
    const cases: [Buffer, Decoded][] = [
      [text({ type: 'mark', name: 'm1' }), { kind: 'mark', name: 'm1' }],
      [text({ type: 'mark', data: { name: 'j1' } }), { kind: 'mark', name: 'j1' }],
      [text({ type: 'mark' }), { kind: 'ignored', why: 'mark without name' }],
      [text({ type: 'mark', name: 7 }), { kind: 'ignored', why: 'mark without name' }],
      [text({ type: 'mark', name: 'x'.repeat(MAX_MARK_NAME + 1) }), { kind: 'ignored', why: `mark name over ${MAX_MARK_NAME} characters` }],
      [text({ type: 'killAudio' }), { kind: 'clear' }],
      [text({ type: 'clear' }), { kind: 'clear' }],
      [text({ type: 'disconnect' }), { kind: 'close' }],
      [text({ type: 'playAudio', data: {} }), { kind: 'ignored', why: 'unknown raw message type playAudio' }],
      [text({ event: 'mark', mark: { name: 'n' } }), { kind: 'ignored', why: 'Twilio Media Streams event mark', hint: TWILIO_HINT }],
      [text('{nope'), { kind: 'ignored', why: 'not JSON' }],
    ];
    for (const [data, decoded] of cases) expect(codec.decode(data, false), data.toString()).toEqual(decoded);
    const odd = Buffer.from([1, 2, 3]);
    expect(codec.decode(odd, true)).toEqual({ kind: 'audio', pcm: odd });
  });

  it('tells a mark back with its name at the top and in jambonz\'s data, saying whether it played or was cleared', () => {
    const codec = new RawAgentCodec();
    expect(JSON.parse(codec.markPlayed('m1', false))).toEqual({ type: 'mark', name: 'm1', data: { name: 'm1', event: 'playout' } });
    expect(JSON.parse(codec.markPlayed('m1', true))).toEqual({ type: 'mark', name: 'm1', data: { name: 'm1', event: 'cleared' } });
  });
});

describe('TwilioCodec', () => {
  it('writes connected and start, then numbers every message after connected', () => {
    const codec = new TwilioCodec('MZtest');
    const [connected, start] = codec.start({ ...info, parameters: { tenant: 'acme' } });
    expect(connected).toBe('{"event":"connected","protocol":"Call","version":"1.0.0"}');
    expect(JSON.parse(start!)).toEqual({
      event: 'start',
      sequenceNumber: '1',
      streamSid: 'MZtest',
      start: {
        streamSid: 'MZtest',
        accountSid: 'local',
        callSid: 'call_1',
        tracks: ['inbound'],
        customParameters: { callId: 'call_1', direction: 'outgoing', remoteNumber: '+15550100', deviceId: 'phone-1', tenant: 'acme' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    expect(codec.markPlayed('m1')).toBe('{"event":"mark","sequenceNumber":"2","streamSid":"MZtest","mark":{"name":"m1"}}');
    expect(codec.dtmf('5')).toBe('{"event":"dtmf","sequenceNumber":"3","streamSid":"MZtest","dtmf":{"track":"inbound_track","digit":"5"}}');
    expect(codec.stop()).toBe('{"event":"stop","sequenceNumber":"4","streamSid":"MZtest","stop":{"accountSid":"local","callSid":"call_1"}}');
  });

  it('writes each frame as a media message: 160 bytes of mu-law, chunk and timestamp counting from 1 and 0 (known vector)', () => {
    const codec = new TwilioCodec('MZtest');
    codec.start(info);
    const first = codec.audio(constant(1000));
    const expected = (sequenceNumber: string, chunk: string, timestamp: string) => ({
      event: 'media',
      sequenceNumber,
      streamSid: 'MZtest',
      media: { track: 'inbound', chunk, timestamp, payload: MULAW_1000_BASE64 },
    });
    // Byte for byte what JSON.stringify writes, keys in the same order.
    expect(first).toBe(JSON.stringify(expected('2', '1', '0')));
    expect(codec.audio(constant(1000))).toBe(JSON.stringify(expected('3', '2', '20')));
  });

  it('decodes media as 16 kHz PCM by linear interpolation, carried across messages (known vector)', () => {
    const codec = new TwilioCodec();
    // mu-law 0x80, 0x00, 0xff decode to 32124, -32124, 0; each is preceded by the mean with the one before.
    const decoded = codec.decode(text({ event: 'media', streamSid: 'anything', media: { payload: 'gAD/' } }), false);
    expect(decoded.kind).toBe('audio');
    const pcm = (decoded as { pcm: Buffer }).pcm;
    expect(Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(2 * i))).toEqual([16062, 32124, 0, -32124, -16062, 0]);
    const next = codec.decode(text({ event: 'media', media: { payload: Buffer.from([0x80]).toString('base64') } }), false) as { pcm: Buffer };
    expect([next.pcm.readInt16LE(0), next.pcm.readInt16LE(2)]).toEqual([16062, 32124]);
  });

  it('round-trips a frame: what an agent echoes back decodes to the interpolation of what was sent', () => {
    const sender = new TwilioCodec('MZa');
    const receiver = new TwilioCodec('MZb');
    const frame = Buffer.alloc(FRAME_BYTES);
    for (let i = 0; i < FRAME_BYTES / 2; i++) frame.writeInt16LE(Math.round(8000 * Math.sin(i / 5)), 2 * i);
    const sent = JSON.parse(sender.audio(frame)) as { media: { payload: string } };
    const echoed = receiver.decode(text({ event: 'media', media: { payload: sent.media.payload } }), false) as { pcm: Buffer };
    expect(echoed.pcm.equals(new MulawUpsampler().push(pcm16kToMulaw8k(frame)))).toBe(true);
  });

  it('decodes marks and clear; clear restarts the interpolation', () => {
    const codec = new TwilioCodec();
    expect(codec.decode(text({ event: 'mark', streamSid: 'x', mark: { name: 'greeting' } }), false)).toEqual({ kind: 'mark', name: 'greeting' });
    codec.decode(text({ event: 'media', media: { payload: 'gA==' } }), false);
    expect(codec.decode(text({ event: 'clear', streamSid: 'x' }), false)).toEqual({ kind: 'clear' });
    const after = codec.decode(text({ event: 'media', media: { payload: '/w==' } }), false) as { pcm: Buffer };
    expect([after.pcm.readInt16LE(0), after.pcm.readInt16LE(2)]).toEqual([0, 0]);
  });

  it('skips a media payload that is not base64 instead of playing what a lenient decoder makes of it', () => {
    const codec = new TwilioCodec();
    for (const payload of ['data:audio/x-mulaw;base64,gAD/', 'hello world', 'gA D/', 'gAD/=', 'g', '!!!!']) {
      expect(codec.decode(text({ event: 'media', media: { payload } }), false), payload).toEqual({ kind: 'ignored', why: 'media payload is not base64' });
    }
    // Padded or not, and empty, base64 is audio.
    for (const [payload, samples] of [['gAD/', 6], ['gA==', 2], ['gA', 2], ['', 0]] as const) {
      const decoded = codec.decode(text({ event: 'media', media: { payload } }), false);
      expect(decoded.kind, payload).toBe('audio');
      expect((decoded as { pcm: Buffer }).pcm.length / 2, payload).toBe(samples);
    }
  });

  it('says why anything else is ignored', () => {
    const codec = new TwilioCodec();
    const cases: [Buffer, boolean, string][] = [
      [Buffer.alloc(640), true, 'binary frame on a vendor stream'],
      [text('{nope'), false, 'not JSON'],
      [text('"media"'), false, 'not a JSON object'],
      [text({ event: 'media' }), false, 'media without payload'],
      [text({ event: 'media', media: { payload: 5 } }), false, 'media without payload'],
      [text({ event: 'mark', mark: {} }), false, 'mark without name'],
      [text({ event: 'mark', mark: { name: 'x'.repeat(257) } }), false, 'mark name over 256 characters'],
      [text({ type: 'clear' }), false, 'unknown vendor event undefined'],
      [text({ event: 'dance' }), false, 'unknown vendor event dance'],
    ];
    for (const [data, isBinary, why] of cases) expect(codec.decode(data, isBinary), data.toString()).toEqual({ kind: 'ignored', why });
    expect(codec.decode(text({ event: 'mark', mark: { name: 'x'.repeat(256) } }), false)).toEqual({ kind: 'mark', name: 'x'.repeat(256) });
  });
});
