import type { AudioCodec, StreamFormat } from './codec.js';
import { RawCodec } from './raw.js';
import { TwilioCodec } from './twilio.js';

export { parseObject, type AudioCodec, type Decoded, type StartInfo, type StreamFormat } from './codec.js';
export { RawCodec, TWILIO_HINT } from './raw.js';
export { MAX_MARK_NAME, TwilioCodec } from './twilio.js';

/** The one place the format of a stream picks its codec. */
export function codecFor(format: StreamFormat): AudioCodec {
  return format === 'vendor' ? new TwilioCodec() : new RawCodec();
}
