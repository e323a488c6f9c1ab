export * from './constants.js';
export { decodeMulawSample, encodeMulawSample, MulawUpsampler, pcm16kToMulaw8k } from './mulaw.js';
export { Resampler, type ResamplerOptions } from './resample.js';
export { PlayoutBuffer, SourceQueue, type MarkListener } from './playout.js';
export { PlayoutPacer } from './pacer.js';
export { FrameClock, type FrameClockOptions, type TickListener } from './clock.js';
export { AUDIO_DROP_REASONS, AudioDrops, type AudioDropReason } from './drops.js';
