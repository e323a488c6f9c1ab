package dev.voicegateway.core.audio;

import java.util.ArrayDeque;

/**
 * The phone's small buffer for the gateway's paced frames (phone-protocol.md section 4): it starts
 * playing once {@code targetFrames} have arrived, plays silence (null) when it runs dry and then
 * fills up again, and drops the oldest frame when {@code maxFrames} are waiting, so the delay it
 * adds stays bounded. Pure; used on the core's clock.
 */
public final class JitterBuffer {
    private final int targetFrames;
    private final int maxFrames;
    private final ArrayDeque<byte[]> frames = new ArrayDeque<byte[]>();
    private boolean playing;
    private long underruns;
    private long overflows;

    public JitterBuffer(int targetFrames, int maxFrames) {
        if (targetFrames < 1 || maxFrames < targetFrames) throw new IllegalArgumentException("bad jitter buffer size");
        this.targetFrames = targetFrames;
        this.maxFrames = maxFrames;
    }

    public void offer(byte[] frame) {
        if (frames.size() == maxFrames) {
            frames.poll();
            overflows++;
        }
        frames.add(frame);
        if (frames.size() >= targetFrames) playing = true;
    }

    /** The frame to play now, or null for silence. */
    public byte[] poll() {
        if (!playing) return null;
        byte[] f = frames.poll();
        if (f == null) {
            playing = false;
            underruns++;
        }
        return f;
    }

    public int depth() {
        return frames.size();
    }

    /** Times the buffer ran dry while playing. */
    public long underruns() {
        return underruns;
    }

    /** Frames dropped because the buffer was full. */
    public long overflows() {
        return overflows;
    }

    public void clear() {
        frames.clear();
        playing = false;
    }
}
