package dev.voicegateway.core;

import java.util.Random;

/**
 * Delay before reconnect attempt {@code n}: doubling from {@code initialMs} up to {@code maxMs}, of
 * which a random half is taken away ("equal jitter"), so phones that lost the same gateway do not
 * all come back in the same instant.
 */
public final class Backoff {
    private Backoff() {
    }

    /** @param attempt 1 for the first retry */
    public static long delayMs(int attempt, long initialMs, long maxMs, Random random) {
        long base = initialMs;
        for (int i = 1; i < attempt && base < maxMs; i++) base *= 2;
        base = Math.min(base, maxMs);
        long half = base / 2;
        return half + (long) (random.nextDouble() * (base - half + 1));
    }
}
