package dev.voicegateway.core.audio;

import dev.voicegateway.core.Protocol;

/**
 * Between the rate a phone records or plays at and the protocol's frames (640 bytes, 20 ms of
 * 16 kHz mono s16le): {@link Capture} turns reads of any length into whole frames, {@link Playback}
 * turns a frame into samples to write. Each keeps its resampler's state for the whole call.
 */
public final class FrameAdapter {
    private FrameAdapter() {
    }

    public static final int SAMPLES_PER_FRAME = Protocol.FRAME_BYTES / 2;

    /** Where whole frames go. */
    public interface FrameSink {
        void onFrame(byte[] frame);
    }

    /** Captured samples at {@code rate} to whole frames at 16 kHz. */
    public static final class Capture {
        private final Resampler resampler;
        private final FrameSink sink;
        private short[] converted = new short[0];
        private byte[] frame = new byte[Protocol.FRAME_BYTES];
        private int filled;

        public Capture(int rate, FrameSink sink) {
            this.resampler = Resampler.create(rate, 16000);
            this.sink = sink;
        }

        /** Samples as read; every frame they complete goes to the sink, on this thread. */
        public void write(short[] pcm, int offset, int count) {
            int need = resampler.maxOutput(count);
            if (converted.length < need) converted = new short[need];
            int n = resampler.process(pcm, offset, count, converted);
            for (int i = 0; i < n; i++) {
                short s = converted[i];
                frame[filled++] = (byte) s;
                frame[filled++] = (byte) (s >> 8);
                if (filled == Protocol.FRAME_BYTES) {
                    sink.onFrame(frame);
                    // The sink may keep the frame (it is sent later): each frame is a new array.
                    frame = new byte[Protocol.FRAME_BYTES];
                    filled = 0;
                }
            }
        }
    }

    /** Frames at 16 kHz to samples at {@code rate}, for the phone's player. */
    public static final class Playback {
        private final Resampler resampler;
        private final short[] in = new short[SAMPLES_PER_FRAME];
        private final short[] out;

        public Playback(int rate) {
            this.resampler = Resampler.create(16000, rate);
            this.out = new short[resampler.maxOutput(SAMPLES_PER_FRAME)];
        }

        /** The samples of one frame at the player's rate, in a buffer reused by the next call; returns how many. */
        public int convert(byte[] frame) {
            for (int i = 0; i < SAMPLES_PER_FRAME; i++) in[i] = (short) ((frame[2 * i] & 0xff) | (frame[2 * i + 1] << 8));
            return resampler.process(in, 0, SAMPLES_PER_FRAME, out);
        }

        public short[] samples() {
            return out;
        }
    }
}
