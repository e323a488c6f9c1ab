/** Call audio as the spec fixes it: 16 kHz mono s16le in 20 ms frames. */
export const SAMPLE_RATE = 16_000;
export const CHANNELS = 1;
export const FRAME_MS = 20;
export const BYTES_PER_SAMPLE = 2;
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000; // 320
export const FRAME_BYTES = FRAME_SAMPLES * BYTES_PER_SAMPLE; // 640

/** The vendor (Twilio Media Streams) format: 8 kHz G.711 mu-law. */
export const MULAW_SAMPLE_RATE = 8_000;
export const MULAW_FRAME_BYTES = (MULAW_SAMPLE_RATE * FRAME_MS) / 1000; // 160

export const PCM_FORMAT = {
  encoding: 'pcm_s16le',
  sampleRate: SAMPLE_RATE,
  channels: CHANNELS,
  frameMs: FRAME_MS,
} as const;
