import { randomBytes } from 'node:crypto';
import { MULAW_SAMPLE_RATE } from '../audio/index.js';

/**
 * Twilio's bidirectional Media Streams messages, as the `vendor` stream format speaks them.
 * `sequenceNumber` counts every message after `connected`, starting at 1.
 */
export class VendorMessages {
  readonly streamSid = `MZ${randomBytes(16).toString('hex')}`;
  private sequence = 0;
  private chunk = 0;

  constructor(private readonly callSid: string) {}

  connected(): object {
    return { event: 'connected', protocol: 'Call', version: '1.0.0' };
  }

  start(customParameters: Record<string, string>): object {
    return {
      event: 'start',
      sequenceNumber: this.nextSequence(),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: 'local',
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: MULAW_SAMPLE_RATE, channels: 1 },
      },
    };
  }

  /** One 20 ms chunk of mu-law; `timestamp` is its start in ms since the stream began. */
  media(mulaw: Buffer): object {
    this.chunk += 1;
    return {
      event: 'media',
      sequenceNumber: this.nextSequence(),
      streamSid: this.streamSid,
      media: { track: 'inbound', chunk: String(this.chunk), timestamp: String((this.chunk - 1) * 20), payload: mulaw.toString('base64') },
    };
  }

  mark(name: string): object {
    return { event: 'mark', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, mark: { name } };
  }

  dtmf(digit: string): object {
    return { event: 'dtmf', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, dtmf: { track: 'inbound_track', digit } };
  }

  stop(): object {
    return { event: 'stop', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, stop: { accountSid: 'local', callSid: this.callSid } };
  }

  private nextSequence(): string {
    this.sequence += 1;
    return String(this.sequence);
  }
}
