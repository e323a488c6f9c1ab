import { BYTES_PER_SAMPLE, PCM_FORMAT, SAMPLE_RATE } from '../audio/index.js';
import { parseObject, type AudioCodec, type Decoded, type StartInfo } from './codec.js';
import { MAX_MARK_NAME } from './twilio.js';

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

  /** The plain raw format has no marks (RawAgentCodec adds them). */
  markPlayed(_name: string, _cleared?: boolean): string | null {
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

/**
 * The raw format as agent streams speak it: the raw format plus marks, and the verbs of jambonz's
 * audio protocol (the `listen` verb's bidirectional stream, as @jambonz/sdk's AudioStream sends
 * them), so an agent written for jambonz runs unchanged (docs/api.md, "Marks and jambonz verbs on
 * raw streams"):
 *
 * - `{type: "mark", name}` or jambonz's `{type: "mark", data: {name}}`: told back once the audio
 *   before it has played, as `{type: "mark", name, data: {name, event: "playout"}}`, or at `clear`
 *   with `event: "cleared"`: both shapes in one message, so either kind of agent reads it.
 * - `{type: "killAudio"}` is `clear`; `{type: "disconnect"}` closes the stream (the agent hung up).
 *
 * The media socket keeps the plain raw format (RawCodec): these are agent-stream extensions.
 */
export class RawAgentCodec extends RawCodec {
  override markPlayed(name: string, cleared = false): string {
    const event = cleared ? 'cleared' : 'playout';
    return JSON.stringify({ type: 'mark', name, data: { name, event } });
  }

  override decode(data: Buffer, isBinary: boolean): Decoded {
    if (isBinary) return super.decode(data, isBinary);
    const message = parseObject(data);
    if (typeof message === 'string') return { kind: 'ignored', why: message };
    switch (message.type) {
      case 'mark': {
        const name = typeof message.name === 'string' ? message.name : (message.data as { name?: unknown } | undefined)?.name;
        if (typeof name !== 'string') return { kind: 'ignored', why: 'mark without name' };
        if (name.length > MAX_MARK_NAME) return { kind: 'ignored', why: `mark name over ${MAX_MARK_NAME} characters` };
        return { kind: 'mark', name };
      }
      case 'killAudio':
        return { kind: 'clear' };
      case 'disconnect':
        return { kind: 'close' };
      default:
        return super.decode(data, isBinary);
    }
  }
}
