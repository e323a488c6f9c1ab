package dev.voicegateway.core.audio;

/**
 * Converts 16-bit mono PCM between 8, 16 and 48 kHz with a polyphase windowed-sinc (Kaiser) FIR:
 * the audio helper's capture or injection runs at the rate a phone offers, the call's frames are
 * 16 kHz. Linear interpolation would let images and aliases through that a speech model hears as
 * hiss; this filter keeps them 70 dB down, with a flat passband up to 3.4 kHz (8 kHz side) or
 * 7 kHz (48 kHz side). Its state is kept across calls of {@link #process}, so cutting the input into
 * frames of any size gives exactly the samples one long call would. Coefficients come from
 * StrictMath, so the output is the same on the phone and on the host. Not thread-safe.
 */
public final class Resampler {
    private static final double STOPBAND_DB = 70;

    private final int up;
    private final int down;
    private final int taps;
    /** Branch p holds the taps h[p], h[p + up], h[p + 2 up] ... of the prototype filter. */
    private final double[][] branches;
    /** The last {@code taps - 1} input samples, oldest first, then the current chunk. */
    private short[] window;
    /** Position of the next output sample, in steps of the upsampled rate, from the chunk's start. */
    private long position;

    private Resampler(int up, int down, double transitionHz, int fromRate, int toRate) {
        this.up = up;
        this.down = down;
        if (up == 1 && down == 1) {
            taps = 1;
            branches = new double[][] {{1.0}};
        } else {
            double upRate = (double) fromRate * up;
            double cutoff = Math.min(fromRate, toRate) / 2.0 / upRate; // cycles per upsampled sample
            double dw = 2 * Math.PI * transitionHz / upRate;
            int length = (int) Math.ceil((STOPBAND_DB - 8) / (2.285 * dw)) + 1;
            int perBranch = (length + up - 1) / up;
            taps = perBranch;
            branches = design(up, perBranch, cutoff);
        }
        window = new short[taps - 1 + 4096];
    }

    /** A resampler from {@code fromRate} to {@code toRate}: 8000, 16000 or 48000 each (equal rates copy). */
    public static Resampler create(int fromRate, int toRate) {
        if (!supported(fromRate) || !supported(toRate)) {
            throw new IllegalArgumentException("unsupported rates " + fromRate + " -> " + toRate + " (8000, 16000, 48000)");
        }
        int g = gcd(fromRate, toRate);
        int up = toRate / g;
        int down = fromRate / g;
        // The band kept is the lower rate's: 0-3.4 kHz at 8 kHz, 0-7 kHz at 16 kHz; the transition
        // runs to as far above its Nyquist frequency as the passband edge is below it.
        int lower = Math.min(fromRate, toRate);
        double transitionHz = lower == 8000 ? 1200 : 2000;
        return new Resampler(up, down, transitionHz, fromRate, toRate);
    }

    public static boolean supported(int rate) {
        return rate == 8000 || rate == 16000 || rate == 48000;
    }

    /** The most output samples {@code inputCount} input samples can give (size of {@code out}). */
    public int maxOutput(int inputCount) {
        return (int) (((long) inputCount * up + down - 1) / down) + 1;
    }

    /** The filter's delay, in output samples: a tone comes out this much later. */
    public double delay() {
        return (taps * up - 1) / 2.0 / down;
    }

    /**
     * Resamples {@code count} samples of {@code in} from {@code offset} into {@code out} (from 0) and
     * returns how many output samples were written; {@code out} must hold {@link #maxOutput}.
     */
    public int process(short[] in, int offset, int count, short[] out) {
        int keep = taps - 1;
        if (window.length < keep + count) {
            short[] bigger = new short[keep + count];
            System.arraycopy(window, 0, bigger, 0, keep);
            window = bigger;
        }
        System.arraycopy(in, offset, window, keep, count);
        int written = 0;
        long end = (long) count * up;
        while (position < end) {
            int index = (int) (position / up); // input sample of the chunk, 0-based
            double[] h = branches[(int) (position % up)];
            int newest = keep + index;
            double sum = 0;
            for (int k = 0; k < h.length; k++) sum += h[k] * window[newest - k];
            long s = Math.round(sum);
            out[written++] = (short) (s > Short.MAX_VALUE ? Short.MAX_VALUE : s < Short.MIN_VALUE ? Short.MIN_VALUE : s);
            position += down;
        }
        position -= end;
        // The newest taps - 1 samples stay as the next chunk's history.
        System.arraycopy(window, count, window, 0, keep);
        return written;
    }

    /** Forgets the history, as at the start of a new call. */
    public void reset() {
        java.util.Arrays.fill(window, (short) 0);
        position = 0;
    }

    private static double[][] design(int up, int perBranch, double cutoff) {
        int length = perBranch * up;
        double center = (length - 1) / 2.0;
        double beta = 0.1102 * (STOPBAND_DB - 8.7);
        double i0Beta = besselI0(beta);
        double[] h = new double[length];
        for (int n = 0; n < length; n++) {
            double t = n - center;
            double x = 2 * cutoff * t;
            double sinc = t == 0 ? 1 : StrictMath.sin(Math.PI * x) / (Math.PI * x);
            double r = t / center;
            double w = besselI0(beta * StrictMath.sqrt(Math.max(0, 1 - r * r))) / i0Beta;
            h[n] = 2 * cutoff * sinc * w;
        }
        double[][] branches = new double[up][perBranch];
        for (int p = 0; p < up; p++) {
            double sum = 0;
            for (int k = 0; k < perBranch; k++) sum += h[p + k * up];
            // Each branch alone passes DC with gain 1: a constant stays exactly constant.
            for (int k = 0; k < perBranch; k++) branches[p][k] = h[p + k * up] / sum;
        }
        return branches;
    }

    private static double besselI0(double x) {
        double sum = 1;
        double term = 1;
        double half = x / 2;
        for (int k = 1; k < 60; k++) {
            term *= (half / k) * (half / k);
            sum += term;
            if (term < sum * 1e-17) break;
        }
        return sum;
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
