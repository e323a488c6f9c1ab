import type { AudioCodec } from './codec.js';
import type { StreamFormat } from './formats.js';
import { RawAgentCodec } from './raw.js';
import { TwilioCodec } from './twilio.js';

export { parseObject, type AudioCodec, type Decoded, type StartInfo } from './codec.js';
export { STREAM_FORMATS, type StreamFormat } from './formats.js';
export { RawAgentCodec, RawCodec, TWILIO_HINT } from './raw.js';
export { MAX_MARK_NAME, TwilioCodec } from './twilio.js';

/** The one place the format of an agent stream picks its codec. */
export function codecFor(format: StreamFormat): AudioCodec {
  return format === 'vendor' ? new TwilioCodec() : new RawAgentCodec();
}
