import { BYTES_PER_SAMPLE, PCM_FORMAT, SAMPLE_RATE } from '../audio/index.js';
import { parseObject, type AudioCodec, type Decoded, type StartInfo } from './codec.js';

/** Events of Twilio Media Streams: a raw stream that receives them is talking to a vendor-format agent. */
const TWILIO_EVENTS = new Set(['connected', 'start', 'media', 'mark', 'clear', 'stop', 'dtmf']);
export const TWILIO_HINT = 'looks like Twilio Media Streams: set stream.format to vendor';

/**
 * The raw format (spec "Stream protocol"): a JSON start, binary 640-byte frames of the remote
 * party, a JSON stop; from the peer, binary PCM of any length and `{"type":"clear"}`. The media
 * socket speaks it with the roles swapped (contract.md), so it is the one parser of both.
 */
export class RawCodec implements AudioCodec {
  readonly format = 'raw';
  readonly bytesPerSecond = SAMPLE_RATE * BYTES_PER_SAMPLE;
  private callId = '';

  start(info: StartInfo): string[] {
    const { callId, direction, remoteNumber, deviceId, parameters } = info;
    this.callId = callId;
    return [JSON.stringify({ type: 'start', callId, direction, remoteNumber, deviceId, ...parameters, format: PCM_FORMAT })];
  }

  audio(frame: Buffer): Buffer {
    return frame;
  }

  markPlayed(): null {
    return null;
  }

  dtmf(): null {
    return null;
  }

  stop(): string {
    return JSON.stringify({ type: 'stop', callId: this.callId });
  }

  decode(data: Buffer, isBinary: boolean): Decoded {
    if (isBinary) return { kind: 'audio', pcm: data };
    const message = parseObject(data);
    if (typeof message === 'string') return { kind: 'ignored', why: message };
    if (message.type === 'clear') return { kind: 'clear' };
    if (message.type === undefined && typeof message.event === 'string' && TWILIO_EVENTS.has(message.event)) {
      return { kind: 'ignored', why: `Twilio Media Streams event ${message.event}`, hint: TWILIO_HINT };
    }
    return { kind: 'ignored', why: `unknown raw message type ${String(message.type)}` };
  }
}
