import { FRAME_BYTES } from './constants.js';

/** Why the gateway dropped call audio: the `reason` of voice_gateway_audio_frames_dropped_total. */
export const AUDIO_DROP_REASONS = ['wrong_size', 'no_call', 'queue_full', 'consumer_gone', 'phone_gone'] as const;
export type AudioDropReason = (typeof AUDIO_DROP_REASONS)[number];

/**
 * Plain integer counts of the audio the gateway dropped, one set per gateway. They are bumped only
 * where audio is dropped, never on the path a frame that gets through takes; /metrics reads them
 * when it is scraped. Audio that arrives in pieces of any length is counted in bytes and reported in
 * 20 ms frames.
 */
export class AudioDrops {
  /** Binary messages from phones that are not one 640-byte frame. */
  wrongSize = 0;
  /** Frames from a phone that has no active or held call. */
  noCallFrames = 0;
  /** Audio a media client sent before its call was answered (nothing plays it yet). */
  noCallBytes = 0;
  /** Audio sent into a call beyond a source's two-minute play-out queue. */
  queueFullBytes = 0;
  /** Frames not sent to an agent, media client or the assistant's model: cut off (too slow, no pong) or closing. */
  consumerGone = 0;
  /** Frames the play-out clock had for a phone whose socket was gone (the call's grace period). */
  phoneGone = 0;

  /** Dropped 20 ms frames by reason; pieces of audio count as the whole frames they add up to. */
  frames(): Record<AudioDropReason, number> {
    return {
      wrong_size: this.wrongSize,
      no_call: this.noCallFrames + Math.floor(this.noCallBytes / FRAME_BYTES),
      queue_full: Math.floor(this.queueFullBytes / FRAME_BYTES),
      consumer_gone: this.consumerGone,
      phone_gone: this.phoneGone,
    };
  }
}
