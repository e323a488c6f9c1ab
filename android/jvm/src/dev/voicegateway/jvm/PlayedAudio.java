package dev.voicegateway.jvm;

import dev.voicegateway.core.Protocol;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What was played into the call on the host (by the tone port, or the fake helper's uplink): the
 * frames, up to a minute, with when each arrived and whether it was audible.
 */
final class PlayedAudio {
    private static final int MAX_FRAMES = 60 * 1000 / Protocol.FRAME_MS;
    private static final long EPOCH = System.nanoTime();

    private final ByteArrayOutputStream recorded = new ByteArrayOutputStream();
    private final List<double[]> arrivals = new ArrayList<double[]>();
    private long played;
    private long audible;

    synchronized void record(byte[] frame) {
        played++;
        boolean loud = false;
        for (int i = 0; i < frame.length && !loud; i++) loud = frame[i] != 0;
        if (loud) audible++;
        if (arrivals.size() < MAX_FRAMES) {
            recorded.write(frame, 0, frame.length);
            arrivals.add(new double[] {(System.nanoTime() - EPOCH) / 1e6, loud ? 1 : 0});
        }
    }

    synchronized long framesPlayed() {
        return played;
    }

    /** Frames played that were not silence: the gateway's audio, not the jitter buffer's filler. */
    synchronized long framesAudible() {
        return audible;
    }

    /** What was played, silence included, up to a minute. */
    synchronized byte[] recorded() {
        return recorded.toByteArray();
    }

    /** When each recorded frame arrived (ms on the host's monotonic clock) and whether it was audible (1). */
    synchronized List<double[]> arrivals() {
        return new ArrayList<double[]>(arrivals);
    }

    synchronized void reset() {
        recorded.reset();
        arrivals.clear();
        played = 0;
        audible = 0;
    }
}
