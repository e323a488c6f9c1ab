package dev.voicegateway.core.audio;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/**
 * The resampler between the phone's rates and the protocol's 16 kHz: DC, passband, stopband
 * (aliases and images), the delay it states, and that frames of any size give the same samples.
 */
public class ResamplerTest {
    private static final int[][] PAIRS = {{8000, 16000}, {16000, 8000}, {16000, 48000}, {48000, 16000}};
    private static final double AMPLITUDE = 20000;

    private static short[] tone(int rate, double hz, int count) {
        short[] s = new short[count];
        for (int i = 0; i < count; i++) s[i] = (short) Math.round(AMPLITUDE * Math.sin(2 * Math.PI * hz * i / rate));
        return s;
    }

    private static short[] run(Resampler r, short[] in) {
        short[] out = new short[r.maxOutput(in.length)];
        return Arrays.copyOf(out, r.process(in, 0, in.length, out));
    }

    /** Amplitude of the {@code hz} component of {@code s} (at {@code rate}) over [from, to). */
    private static double amplitude(short[] s, int rate, double hz, int from, int to) {
        double c = 0;
        double q = 0;
        for (int i = from; i < to; i++) {
            double w = 2 * Math.PI * hz * i / rate;
            c += s[i] * Math.cos(w);
            q += s[i] * Math.sin(w);
        }
        int n = to - from;
        return 2 * Math.sqrt(c * c + q * q) / n;
    }

    private static double db(double ratio) {
        return 20 * Math.log10(ratio);
    }

    /** Gain (dB) of a tone of {@code hz} through from -> to, measured at {@code measureHz} of the output. */
    private static double gain(int from, int to, double hz, double measureHz) {
        Resampler r = Resampler.create(from, to);
        short[] out = run(r, tone(from, hz, from)); // one second
        int skip = to / 10; // well past the filter's warm-up
        return db(amplitude(out, to, measureHz, skip, out.length - skip) / AMPLITUDE);
    }

    @Test
    public void aConstantStaysExactlyConstant() {
        for (int[] p : PAIRS) {
            Resampler r = Resampler.create(p[0], p[1]);
            short[] in = new short[p[0] / 10];
            Arrays.fill(in, (short) -12345);
            short[] out = run(r, in);
            for (int i = 200; i < out.length; i++) assertEquals(p[0] + "->" + p[1] + " sample " + i, -12345, out[i]);
        }
    }

    @Test
    public void thePassbandIsFlatToTheTelephoneBandAndToWidebandSpeech() {
        for (double hz : new double[] {300, 1000, 2000, 3400}) {
            assertEquals("8k->16k " + hz, 0, gain(8000, 16000, hz, hz), 0.1);
            assertEquals("16k->8k " + hz, 0, gain(16000, 8000, hz, hz), 0.1);
        }
        for (double hz : new double[] {300, 1000, 4000, 7000}) {
            assertEquals("16k->48k " + hz, 0, gain(16000, 48000, hz, hz), 0.1);
            assertEquals("48k->16k " + hz, 0, gain(48000, 16000, hz, hz), 0.1);
        }
    }

    @Test
    public void downsamplingKeepsAliasesSeventyDecibelsDown() {
        // A tone above the output's Nyquist frequency would fold back into the band as a false tone.
        assertTrue(gain(16000, 8000, 5000, 3000) < -70);
        assertTrue(gain(16000, 8000, 4600, 3400) < -70);
        assertTrue(gain(48000, 16000, 10000, 6000) < -70);
        assertTrue(gain(48000, 16000, 9000, 7000) < -70);
        assertTrue(gain(48000, 16000, 20000, 4000) < -70);
    }

    @Test
    public void upsamplingKeepsImagesSeventyDecibelsDown() {
        assertTrue(gain(8000, 16000, 1000, 7000) < -70);
        assertTrue(gain(8000, 16000, 3400, 4600) < -70);
        assertTrue(gain(16000, 48000, 7000, 9000) < -70);
        assertTrue(gain(16000, 48000, 7000, 23000) < -70);
        assertTrue(gain(16000, 48000, 1000, 15000) < -70);
    }

    @Test
    public void aToneComesOutAsTheSameToneDelayedByTheStatedDelay() {
        for (int[] p : PAIRS) {
            Resampler r = Resampler.create(p[0], p[1]);
            double hz = 1000;
            short[] out = run(r, tone(p[0], hz, p[0] / 2));
            double delay = r.delay();
            for (int n = p[1] / 20; n < out.length; n++) {
                double expected = AMPLITUDE * Math.sin(2 * Math.PI * hz * (n - delay) / p[1]);
                assertEquals(p[0] + "->" + p[1] + " sample " + n, expected, out[n], AMPLITUDE * 0.001 + 1);
            }
        }
    }

    @Test
    public void framesOfAnySizeGiveExactlyTheSamplesOfOneLongCall() {
        short[] signal = new short[48000];
        long x = 42;
        for (int i = 0; i < signal.length; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            signal[i] = (short) ((x >>> 33) % 20001 - 10000);
        }
        int[] sizes = {7, 1, 960, 13, 320, 2, 161, 4000};
        for (int[] p : PAIRS) {
            int count = (int) ((long) signal.length * p[0] / 48000);
            short[] in = Arrays.copyOf(signal, count);
            short[] whole = run(Resampler.create(p[0], p[1]), in);
            Resampler chunked = Resampler.create(p[0], p[1]);
            List<Short> parts = new ArrayList<Short>();
            int at = 0;
            for (int k = 0; at < count; k++) {
                int n = Math.min(sizes[k % sizes.length], count - at);
                short[] out = new short[chunked.maxOutput(n)];
                int written = chunked.process(in, at, n, out);
                for (int i = 0; i < written; i++) parts.add(out[i]);
                at += n;
            }
            short[] joined = new short[parts.size()];
            for (int i = 0; i < joined.length; i++) joined[i] = parts.get(i);
            assertArrayEquals(p[0] + "->" + p[1], whole, joined);
            assertEquals(p[0] + "->" + p[1] + " output length", (long) count * p[1] / p[0], whole.length);
        }
    }

    @Test
    public void equalRatesCopy() {
        short[] in = tone(16000, 440, 500);
        assertArrayEquals(in, run(Resampler.create(16000, 16000), in));
    }

    @Test(expected = IllegalArgumentException.class)
    public void ratesItWasNotDesignedForAreRefused() {
        Resampler.create(44100, 16000);
    }

    @Test
    public void theCaptureAdapterMakesWholeFramesFromReadsOfAnySize() {
        final List<byte[]> frames = new ArrayList<byte[]>();
        FrameAdapter.Capture capture = new FrameAdapter.Capture(48000, new FrameAdapter.FrameSink() {
            @Override
            public void onFrame(byte[] frame) {
                frames.add(frame);
            }
        });
        short[] in = tone(48000, 1000, 48000);
        for (int at = 0; at < in.length; at += 1000) capture.write(in, at, Math.min(1000, in.length - at));
        assertEquals("one second at 48 kHz is 50 frames at 16 kHz", 50, frames.size());
        short[] expected = run(Resampler.create(48000, 16000), in);
        for (int f = 0; f < frames.size(); f++) {
            byte[] frame = frames.get(f);
            assertEquals(640, frame.length);
            for (int i = 0; i < 320; i++) {
                short s = (short) ((frame[2 * i] & 0xff) | (frame[2 * i + 1] << 8));
                assertEquals("frame " + f + " sample " + i, expected[f * 320 + i], s);
            }
        }
    }

    @Test
    public void thePlaybackAdapterTurnsAFrameIntoTheSamplesOfTwentyMilliseconds() {
        FrameAdapter.Playback playback = new FrameAdapter.Playback(48000);
        byte[] frame = new byte[640];
        for (int i = 0; i < 320; i++) {
            frame[2 * i] = (byte) 0x39;
            frame[2 * i + 1] = (byte) 0x30; // 12345
        }
        int total = 0;
        short last = 0;
        for (int k = 0; k < 10; k++) {
            int n = playback.convert(frame);
            total += n;
            last = playback.samples()[n - 1];
        }
        assertEquals(9600, total);
        assertEquals(12345, last);
    }
}
