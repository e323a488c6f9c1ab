package dev.voicegateway.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import dev.voicegateway.core.audio.JitterBuffer;
import org.junit.Test;

/** The phone's jitter buffer for the gateway's paced frames. */
public class AudioTest {
    private static byte[] frame(int n) {
        byte[] f = new byte[Protocol.FRAME_BYTES];
        f[0] = (byte) n;
        return f;
    }

    @Test
    public void startsAfterTheTargetDepthAndKeepsOrder() {
        JitterBuffer b = new JitterBuffer(2, 4);
        b.offer(frame(1));
        assertNull("still filling: silence", b.poll());
        b.offer(frame(2));
        assertArrayEquals(frame(1), b.poll());
        b.offer(frame(3));
        assertArrayEquals(frame(2), b.poll());
        assertArrayEquals(frame(3), b.poll());
        assertEquals(0, b.underruns());
    }

    @Test
    public void runningDryPlaysSilenceAndFillsUpAgain() {
        JitterBuffer b = new JitterBuffer(2, 4);
        b.offer(frame(1));
        b.offer(frame(2));
        b.poll();
        b.poll();
        assertNull(b.poll());
        assertEquals(1, b.underruns());
        b.offer(frame(3));
        assertNull("refilling to the target before playing again", b.poll());
        b.offer(frame(4));
        assertArrayEquals(frame(3), b.poll());
    }

    @Test
    public void aFullBufferDropsTheOldestSoTheDelayStaysBounded() {
        JitterBuffer b = new JitterBuffer(1, 3);
        for (int i = 1; i <= 5; i++) b.offer(frame(i));
        assertEquals(3, b.depth());
        assertEquals(2, b.overflows());
        assertArrayEquals(frame(3), b.poll());
    }
}
