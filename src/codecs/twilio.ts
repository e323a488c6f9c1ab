import { randomBytes } from 'node:crypto';
import { FRAME_MS, MULAW_SAMPLE_RATE, MulawUpsampler, pcm16kToMulaw8k } from '../audio/index.js';
import { parseObject, type AudioCodec, type Decoded, type StartInfo } from './codec.js';

/** Longest mark name kept; a longer one is ignored. */
export const MAX_MARK_NAME = 256;
/** Base64 as Twilio writes it; the padding may be left off. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A `media` message of one 20 ms frame: 216 characters of base64 in about 180 of JSON. */
const MEDIA_MESSAGE_BYTES = 400;

/**
 * The vendor format: Twilio's bidirectional Media Streams. `sequenceNumber` counts every message
 * after `connected`, starting at 1. Audio goes out as 8 kHz mu-law (pairs of samples averaged) and
 * comes in as 8 kHz mu-law, interpolated to 16 kHz (spec rule 4); `clear` also restarts the
 * interpolation, so the next answer does not begin blended with the dropped one.
 */
export class TwilioCodec implements AudioCodec {
  readonly format = 'vendor';
  readonly bytesPerSecond = (1000 / FRAME_MS) * MEDIA_MESSAGE_BYTES;
  private sequence = 0;
  private chunk = 0;
  private callSid = '';
  private readonly upsampler = new MulawUpsampler();

  constructor(readonly streamSid = `MZ${randomBytes(16).toString('hex')}`) {}

  start(info: StartInfo): string[] {
    const { callId, direction, remoteNumber, deviceId, parameters } = info;
    this.callSid = callId;
    const connected = { event: 'connected', protocol: 'Call', version: '1.0.0' };
    const start = {
      event: 'start',
      sequenceNumber: this.nextSequence(),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: 'local',
        callSid: callId,
        tracks: ['inbound'],
        customParameters: { callId, direction, remoteNumber, deviceId, ...parameters },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: MULAW_SAMPLE_RATE, channels: 1 },
      },
    };
    return [JSON.stringify(connected), JSON.stringify(start)];
  }

  /**
   * One 20 ms chunk; `timestamp` is its start in ms since the stream began. Written as a template:
   * every value is digits, hex or base64, which JSON writes as they are, and it is the message of
   * each frame.
   */
  audio(frame: Buffer): string {
    this.chunk += 1;
    const payload = pcm16kToMulaw8k(frame).toString('base64');
    return `{"event":"media","sequenceNumber":"${this.nextSequence()}","streamSid":"${this.streamSid}","media":{"track":"inbound","chunk":"${this.chunk}","timestamp":"${(this.chunk - 1) * FRAME_MS}","payload":"${payload}"}}`;
  }

  markPlayed(name: string): string {
    return JSON.stringify({ event: 'mark', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, mark: { name } });
  }

  dtmf(digit: string): string {
    return JSON.stringify({ event: 'dtmf', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, dtmf: { track: 'inbound_track', digit } });
  }

  stop(): string {
    return JSON.stringify({ event: 'stop', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, stop: { accountSid: 'local', callSid: this.callSid } });
  }

  decode(data: Buffer, isBinary: boolean): Decoded {
    if (isBinary) return { kind: 'ignored', why: 'binary frame on a vendor stream' };
    const message = parseObject(data);
    if (typeof message === 'string') return { kind: 'ignored', why: message };
    switch (message.event) {
      case 'media': {
        const payload = (message.media as { payload?: unknown } | undefined)?.payload;
        if (typeof payload !== 'string') return { kind: 'ignored', why: 'media without payload' };
        // Node decodes anything as base64, skipping what is not: text or a data URL would play as noise.
        if (!BASE64.test(payload) || payload.length % 4 === 1) return { kind: 'ignored', why: 'media payload is not base64' };
        return { kind: 'audio', pcm: this.upsampler.push(Buffer.from(payload, 'base64')) };
      }
      case 'mark': {
        const name = (message.mark as { name?: unknown } | undefined)?.name;
        if (typeof name !== 'string') return { kind: 'ignored', why: 'mark without name' };
        if (name.length > MAX_MARK_NAME) return { kind: 'ignored', why: `mark name over ${MAX_MARK_NAME} characters` };
        return { kind: 'mark', name };
      }
      case 'clear':
        this.upsampler.reset();
        return { kind: 'clear' };
      default:
        return { kind: 'ignored', why: `unknown vendor event ${String(message.event)}` };
    }
  }

  private nextSequence(): string {
    this.sequence += 1;
    return String(this.sequence);
  }
}
