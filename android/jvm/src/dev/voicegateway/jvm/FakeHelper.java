package dev.voicegateway.jvm;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.FrameAdapter;
import dev.voicegateway.core.helper.CallAudioEngine;
import dev.voicegateway.core.helper.HelperLink;
import dev.voicegateway.core.helper.HelperService;
import dev.voicegateway.core.helper.MessageWriter;
import dev.voicegateway.core.helper.PeerPolicy;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The audio helper on the host: the real {@link HelperService} (the framing, the uid roles,
 * start/stop per call, shutdown) on a TCP port of the loopback, with a tone in place of the
 * remote party and a recorder in place of the call's uplink. It can die (its socket closes, as
 * when the phone reboots) and freeze (it stays connected but says nothing), and be started again.
 */
final class FakeHelper {
    /** The uid the host's "app" has: TCP cannot tell, so every connection is given it. */
    static final int APP_UID = 10123;

    private final Engine engine;
    private final Log log;
    private final int audioWaitingFrames;
    private final TcpHelper.Endpoint endpoint;
    private final Gate gate = new Gate();
    private volatile CountDownLatch listening = new CountDownLatch(1);
    private HelperService service;

    FakeHelper(ScheduledExecutorService executor, ToneAudioPort.SourceFactory sources, boolean stamp, boolean listenOnly, Log log) {
        this(executor, sources, stamp, listenOnly, log, MessageWriter.MAX_AUDIO_WAITING);
    }

    /** @param audioWaitingFrames captured frames that may wait for the app before more are dropped */
    FakeHelper(ScheduledExecutorService executor, ToneAudioPort.SourceFactory sources, boolean stamp, boolean listenOnly, Log log, int audioWaitingFrames) {
        this(new Engine(executor, sources, stamp, listenOnly), log, 0, APP_UID, audioWaitingFrames);
    }

    /**
     * A helper on {@code port} (0: any free one) whose every peer has {@code peerUid} (TCP cannot
     * tell; {@link #APP_UID} is the app's), for tests of who may connect.
     */
    FakeHelper(Engine engine, Log log, int port, int peerUid) {
        this(engine, log, port, peerUid, MessageWriter.MAX_AUDIO_WAITING);
    }

    private FakeHelper(Engine engine, Log log, int port, int peerUid, int audioWaitingFrames) {
        this.engine = engine;
        this.log = log;
        this.audioWaitingFrames = audioWaitingFrames;
        this.endpoint = new TcpHelper.Endpoint(port, peerUid) {
            @Override
            public void listen() throws IOException {
                super.listen();
                listening.countDown();
            }

            @Override
            public HelperLink.Connection accept() throws IOException {
                return gate.wrap(super.accept());
            }
        };
    }

    /**
     * Starts serving, as AudioHelper.main does: a helper still serving on the port is first asked
     * to hand over (REPLACE). Returns once it listens.
     */
    synchronized void start() throws IOException {
        if (running()) return;
        gate.thaw();
        if (endpoint.port() != 0) HelperService.replaceRunning(TcpHelper.link(endpoint.port()), log);
        final HelperService s = new HelperService(new PeerPolicy(APP_UID, "dev.voicegateway.app"), endpoint, engine, log, audioWaitingFrames);
        service = s;
        final CountDownLatch ready = new CountDownLatch(1);
        listening = ready;
        final IOException[] failure = new IOException[1];
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    s.run();
                } catch (IOException e) {
                    failure[0] = e;
                    log.log(Log.ERROR, "the fake helper failed: " + e.getMessage(), null);
                    ready.countDown();
                }
            }
        }, "vg-fake-helper");
        t.setDaemon(true);
        t.start();
        try {
            if (!ready.await(10, TimeUnit.SECONDS)) throw new IOException("the fake helper did not listen within 10 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        if (failure[0] != null) throw failure[0];
    }

    int port() {
        return endpoint.port();
    }

    /** Dies as a helper does at a reboot: the socket closes, nothing listens any more. */
    synchronized void kill() {
        if (service != null) service.stop("killed by the test");
    }

    /** Stays connected but answers nothing and sends nothing (a hung process). */
    void freeze() {
        gate.freeze();
    }

    /** Whether the helper is serving (it exits when the app asks it to). */
    synchronized boolean running() {
        return service != null && !service.isStopping();
    }

    Engine engine() {
        return engine;
    }

    /** The tone and the recorder the helper uses in place of the call's audio. */
    static final class Engine implements CallAudioEngine {
        private final ScheduledExecutorService executor;
        private final ToneAudioPort.SourceFactory sources;
        private final boolean stamp;
        private final boolean listenOnly;
        private final PlayedAudio played = new PlayedAudio();
        private int captures;

        Engine(ScheduledExecutorService executor, ToneAudioPort.SourceFactory sources, boolean stamp, boolean listenOnly) {
            this.executor = executor;
            this.sources = sources;
            this.stamp = stamp;
            this.listenOnly = listenOnly;
        }

        @Override
        public AudioCapabilities capabilities() {
            return new AudioCapabilities(true, !listenOnly, AudioCapabilities.SIMULATED, 16000);
        }

        @Override
        public String note() {
            return listenOnly ? "The fake helper was started listen-only." : "";
        }

        @Override
        public synchronized org.json.JSONObject diagnostics() {
            org.json.JSONObject d = new org.json.JSONObject();
            try {
                d.put("engine", "fake");
                d.put("listenOnly", listenOnly);
                d.put("captures", captures);
                d.put("attempts", new org.json.JSONArray());
            } catch (org.json.JSONException e) {
                throw new IllegalStateException(e);
            }
            return d;
        }

        @Override
        public Running startCapture(final FrameAdapter.FrameSink sink) {
            final ToneAudioPort.Source source = sources.newSource();
            synchronized (this) {
                captures++;
            }
            final Capture capture = new Capture();
            final ScheduledFuture<?> task = executor.scheduleAtFixedRate(new Runnable() {
                private int sequence;

                @Override
                public void run() {
                    if (!capture.begin()) return;
                    try {
                        byte[] frame = new byte[Protocol.FRAME_BYTES];
                        source.fill(frame);
                        if (stamp) ToneAudioPort.writeStamp(frame, sequence++);
                        sink.onFrame(frame);
                    } finally {
                        capture.end();
                    }
                }
            }, Protocol.FRAME_MS, Protocol.FRAME_MS, TimeUnit.MILLISECONDS);
            return new Running() {
                @Override
                public void stop() {
                    task.cancel(false);
                    capture.stop();
                }
            };
        }

        @Override
        public Injection startInjection() throws Exception {
            if (listenOnly) throw new Exception("this fake helper is listen-only");
            return new Injection() {
                @Override
                public void write(byte[] frame) {
                    played.record(frame);
                }

                @Override
                public void stop() {
                }
            };
        }

        /** The recorder in place of the call's uplink. */
        PlayedAudio played() {
            return played;
        }

        /** How many captures were started (one per call the app asked for). */
        synchronized int captures() {
            return captures;
        }
    }

    /**
     * As the phone's engine joins its capture thread (for up to 500 ms): once stop() returns, no
     * frame is on its way. A cancelled fixed-rate task may still be running, so stop() waits for the
     * frame being handed over, without holding a lock across it (the sink may end the session, whose
     * lock stop()'s caller holds).
     */
    static final class Capture {
        private final Semaphore handing = new Semaphore(1);
        private volatile boolean stopped;

        /** Whether a frame may be handed over now; if so, {@link #end} must follow. */
        boolean begin() {
            if (stopped) return false;
            handing.acquireUninterruptibly();
            // stop() may have come in between: it returned, so no frame may go any more.
            if (stopped) {
                handing.release();
                return false;
            }
            return true;
        }

        void end() {
            handing.release();
        }

        void stop() {
            stopped = true;
            try {
                if (handing.tryAcquire(500, TimeUnit.MILLISECONDS)) handing.release();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Freezes every connection: reads wait, writes vanish, nothing is closed. */
    static final class Gate {
        private boolean frozen;

        synchronized void freeze() {
            frozen = true;
        }

        synchronized void thaw() {
            frozen = false;
            notifyAll();
        }

        synchronized boolean frozen() {
            return frozen;
        }

        private synchronized void waitWhileFrozen() throws IOException {
            while (frozen) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    throw new IOException("interrupted");
                }
            }
        }

        HelperLink.Connection wrap(final HelperLink.Connection c) {
            return new TcpHelper.Forwarding(c) {
                @Override
                public InputStream input() throws IOException {
                    return new FilterInputStream(c.input()) {
                        @Override
                        public int read() throws IOException {
                            int b = super.read();
                            waitWhileFrozen();
                            return b;
                        }

                        @Override
                        public int read(byte[] b, int off, int len) throws IOException {
                            int n = super.read(b, off, len);
                            waitWhileFrozen();
                            return n;
                        }
                    };
                }

                @Override
                public OutputStream output() throws IOException {
                    return new FilterOutputStream(c.output()) {
                        @Override
                        public void write(byte[] b, int off, int len) throws IOException {
                            if (!frozen()) out.write(b, off, len);
                        }

                        @Override
                        public void write(int b) throws IOException {
                            if (!frozen()) out.write(b);
                        }
                    };
                }
            };
        }
    }
}
