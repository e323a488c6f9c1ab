package dev.voicegateway.core.helper;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;

/**
 * Writes helper messages to one connection from a thread of its own, so that neither the capture
 * thread nor the app's core ever blocks on a peer that stopped reading. Bounded: an audio frame is
 * dropped (not queued) when {@link #MAX_AUDIO_WAITING} (or the bound it was given) are already
 * waiting, and a peer that lets {@link #MAX_WAITING} messages pile up is given up on (the connection
 * is closed).
 */
public final class MessageWriter {
    public static final int MAX_AUDIO_WAITING = 5;
    public static final int MAX_WAITING = 64;

    /** Hears that writing failed or the queue overflowed; the connection is then finished. */
    public interface Failure {
        void onWriteFailed(IOException error);
    }

    private final OutputStream out;
    private final Failure failure;
    private final int maxAudioWaiting;
    private final ArrayDeque<HelperMessage> queue = new ArrayDeque<HelperMessage>();
    private int audioWaiting;
    private boolean closed;
    private long audioDropped;
    private final Thread thread;

    public MessageWriter(OutputStream out, String name, Failure failure) {
        this(out, name, failure, MAX_AUDIO_WAITING);
    }

    /**
     * @param maxAudioWaiting audio frames that may wait before more are dropped (tests on busy
     *     machines give more, so that a stall of this thread drops none of the audio under test)
     */
    public MessageWriter(OutputStream out, String name, Failure failure, int maxAudioWaiting) {
        this.out = out;
        this.failure = failure;
        this.maxAudioWaiting = checkAudioBound(maxAudioWaiting);
        this.thread = new Thread(new Runnable() {
            @Override
            public void run() {
                loop();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * {@code frames} if it is a usable audio bound: at least one frame, and fewer than
     * {@link #MAX_WAITING}, so that audio alone can never fill the queue and close the connection.
     * Checked where the bound is set (configuration, constructors), not first when a connection opens.
     */
    public static int checkAudioBound(int frames) {
        if (frames < 1 || frames >= MAX_WAITING) {
            throw new IllegalArgumentException("audio frames waiting must be 1 to " + (MAX_WAITING - 1) + ", not " + frames);
        }
        return frames;
    }

    /** Queues a message; false when it was dropped (audio over the bound) or the writer is closed. */
    public boolean send(HelperMessage m) {
        IOException overflow = null;
        synchronized (this) {
            if (closed) return false;
            if (m.type == HelperMessage.AUDIO) {
                if (audioWaiting >= maxAudioWaiting) {
                    audioDropped++;
                    return false;
                }
                audioWaiting++;
            }
            if (queue.size() >= MAX_WAITING) {
                overflow = new IOException("the peer stopped reading: " + MAX_WAITING + " messages waiting");
                closed = true;
            } else {
                queue.add(m);
                notifyAll();
            }
        }
        if (overflow != null) {
            failure.onWriteFailed(overflow);
            return false;
        }
        return true;
    }

    /** Frames not sent because the bound's worth were already waiting. */
    public synchronized long audioDropped() {
        return audioDropped;
    }

    /** Stops after the messages already queued (the writer thread ends; the stream stays open). */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    /** Waits up to {@code ms} for the messages already queued to be written. */
    public void drain(long ms) {
        long end = System.nanoTime() + ms * 1000000L;
        synchronized (this) {
            while (!queue.isEmpty()) {
                long left = (end - System.nanoTime()) / 1000000L;
                if (left <= 0) return;
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void loop() {
        while (true) {
            HelperMessage m;
            synchronized (this) {
                while (queue.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (queue.isEmpty()) return;
                m = queue.peek();
            }
            try {
                out.write(HelperCodec.encode(m));
                out.flush();
            } catch (IOException e) {
                synchronized (this) {
                    closed = true;
                    queue.clear();
                    notifyAll();
                }
                failure.onWriteFailed(e);
                return;
            }
            synchronized (this) {
                queue.poll();
                if (m.type == HelperMessage.AUDIO) audioWaiting--;
                notifyAll();
            }
        }
    }
}
