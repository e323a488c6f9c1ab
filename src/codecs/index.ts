import type { AudioCodec, StreamFormat } from './codec.js';
import { RawAgentCodec } from './raw.js';
import { TwilioCodec } from './twilio.js';

export { parseObject, type AudioCodec, type Decoded, type StartInfo, type StreamFormat } from './codec.js';
export { RawAgentCodec, RawCodec, TWILIO_HINT } from './raw.js';
export { MAX_MARK_NAME, TwilioCodec } from './twilio.js';

/** The one place the format of an agent stream picks its codec. */
export function codecFor(format: StreamFormat): AudioCodec {
  return format === 'vendor' ? new TwilioCodec() : new RawAgentCodec();
}
