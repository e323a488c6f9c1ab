package dev.voicegateway.core.helper;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.voicegateway.core.Protocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Test;

/** The bounded writer between the app and the helper, against a peer that stops reading. */
public class MessageWriterTest {
    /** A peer that takes nothing until it is let go; then it keeps every byte. */
    private static final class StalledPeer extends OutputStream {
        final CountDownLatch writing = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final ByteArrayOutputStream got = new ByteArrayOutputStream();

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            writing.countDown();
            try {
                if (!release.await(10, TimeUnit.SECONDS)) throw new IOException("never released");
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            synchronized (got) {
                got.write(b, off, len);
            }
        }

        List<HelperMessage> messages() throws IOException {
            byte[] bytes;
            synchronized (got) {
                bytes = got.toByteArray();
            }
            ByteArrayInputStream in = new ByteArrayInputStream(bytes);
            List<HelperMessage> out = new ArrayList<HelperMessage>();
            while (in.available() > 0) out.add(HelperCodec.read(in));
            return out;
        }
    }

    private static byte[] frame(int n) {
        byte[] f = new byte[Protocol.FRAME_BYTES];
        f[0] = (byte) n;
        return f;
    }

    private static MessageWriter.Failure failureInto(final AtomicReference<IOException> failed) {
        return new MessageWriter.Failure() {
            @Override
            public void onWriteFailed(IOException error) {
                failed.set(error);
            }
        };
    }

    /** Sends frames 1..n while the peer reads nothing; returns how many were taken. */
    private static int sendWhileStalled(MessageWriter w, StalledPeer peer, int n) throws InterruptedException {
        assertTrue(w.send(HelperMessage.audio(frame(1))));
        // The first frame is being written (and still counts as waiting) before the rest are offered.
        assertTrue("the writer reached the peer", peer.writing.await(5, TimeUnit.SECONDS));
        int taken = 1;
        for (int i = 2; i <= n; i++) if (w.send(HelperMessage.audio(frame(i)))) taken++;
        return taken;
    }

    @Test
    public void dropsAudioBeyondItsBoundButStillQueuesControlMessagesAndWritesInOrder() throws Exception {
        StalledPeer peer = new StalledPeer();
        AtomicReference<IOException> failed = new AtomicReference<IOException>();
        MessageWriter w = new MessageWriter(peer, "test-writer", failureInto(failed));
        try {
            assertEquals(MessageWriter.MAX_AUDIO_WAITING, sendWhileStalled(w, peer, 8));
            assertEquals(8 - MessageWriter.MAX_AUDIO_WAITING, w.audioDropped());
            assertTrue("a control message is never dropped for audio", w.send(HelperMessage.of(HelperMessage.STOP_INJECTION)));
        } finally {
            peer.release.countDown();
        }
        w.drain(5000);
        List<HelperMessage> got = peer.messages();
        assertEquals(MessageWriter.MAX_AUDIO_WAITING + 1, got.size());
        for (int i = 0; i < MessageWriter.MAX_AUDIO_WAITING; i++) assertArrayEquals("frame " + (i + 1), frame(i + 1), got.get(i).frame());
        assertEquals(HelperMessage.STOP_INJECTION, got.get(MessageWriter.MAX_AUDIO_WAITING).type);

        // Once the peer has read them, audio is taken again.
        assertTrue(w.send(HelperMessage.audio(frame(9))));
        w.drain(5000);
        assertArrayEquals(frame(9), peer.messages().get(MessageWriter.MAX_AUDIO_WAITING + 1).frame());
        assertEquals(8 - MessageWriter.MAX_AUDIO_WAITING, w.audioDropped());
        assertEquals(null, failed.get());
        w.close();
    }

    @Test
    public void aLargerBoundHoldsThatManyFramesThroughAStall() throws Exception {
        StalledPeer peer = new StalledPeer();
        MessageWriter w = new MessageWriter(peer, "test-writer", failureInto(new AtomicReference<IOException>()), 20);
        try {
            assertEquals(20, sendWhileStalled(w, peer, 20));
            assertEquals(0, w.audioDropped());
            assertFalse(w.send(HelperMessage.audio(frame(21))));
            assertEquals(1, w.audioDropped());
        } finally {
            peer.release.countDown();
        }
        w.drain(5000);
        assertEquals(20, peer.messages().size());
        w.close();
    }

    @Test
    public void givesUpOnAPeerThatLetsEveryKindOfMessagePileUp() throws Exception {
        StalledPeer peer = new StalledPeer();
        AtomicReference<IOException> failed = new AtomicReference<IOException>();
        MessageWriter w = new MessageWriter(peer, "test-writer", failureInto(failed));
        try {
            assertTrue(w.send(HelperMessage.ping(0)));
            assertTrue(peer.writing.await(5, TimeUnit.SECONDS));
            for (int i = 1; i < MessageWriter.MAX_WAITING; i++) assertTrue("ping " + i, w.send(HelperMessage.ping(i)));
            assertFalse(w.send(HelperMessage.ping(MessageWriter.MAX_WAITING)));
            assertNotNull("the connection is given up", failed.get());
            assertFalse("and takes nothing more", w.send(HelperMessage.of(HelperMessage.STOP_CAPTURE)));
        } finally {
            peer.release.countDown();
        }
    }

    @Test
    public void refusesAnAudioBoundOfNoFrameOrOneThatCouldFillTheWholeQueue() {
        assertEquals(1, MessageWriter.checkAudioBound(1));
        assertEquals(MessageWriter.MAX_WAITING - 1, MessageWriter.checkAudioBound(MessageWriter.MAX_WAITING - 1));
        for (int bad : new int[] {0, -1, MessageWriter.MAX_WAITING}) {
            try {
                new MessageWriter(new ByteArrayOutputStream(), "test-writer", failureInto(new AtomicReference<IOException>()), bad);
                fail("accepted an audio bound of " + bad);
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains(String.valueOf(bad)));
            }
        }
    }
}
