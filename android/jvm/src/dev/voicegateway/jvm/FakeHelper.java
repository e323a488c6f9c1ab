package dev.voicegateway.jvm;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.FrameAdapter;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.helper.AnnouncedEndpoint;
import dev.voicegateway.core.helper.CallAudioEngine;
import dev.voicegateway.core.helper.HelperAnnouncer;
import dev.voicegateway.core.helper.HelperLink;
import dev.voicegateway.core.helper.HelperService;
import dev.voicegateway.core.helper.MessageWriter;
import dev.voicegateway.core.helper.PeerPolicy;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The audio helper on the host: the real {@link HelperService} (the framing, the uid roles,
 * start/stop per call, shutdown) and the real rendezvous ({@link HelperAnnouncer},
 * {@link AnnouncedEndpoint}) over the host's {@link JvmChannel}, with a tone in place of the remote
 * party and a recorder in place of the call's uplink. Each start is a new "process" with a Binder of
 * its own that dies when it stops, as the phone's does. It can die (as when the phone reboots) and
 * freeze (it stays connected but says nothing), and be started again.
 */
final class FakeHelper {
    private final JvmChannel channel;
    private final Engine engine;
    private final Log log;
    private final int audioWaitingFrames;
    private final Gate gate = new Gate();
    /** The helper's rendezvous timings; tests shorten the give-up. */
    final HelperAnnouncer.Config announcing = new HelperAnnouncer.Config();
    private HelperService service;
    /** Counted from the announcer's thread while start() may hold this object's lock: no lock of its own. */
    private final AtomicInteger announcements = new AtomicInteger();

    FakeHelper(JvmChannel channel, ScheduledExecutorService executor, ToneAudioPort.SourceFactory sources, boolean stamp, boolean listenOnly, Log log) {
        this(channel, new Engine(executor, sources, stamp, listenOnly), log, MessageWriter.MAX_AUDIO_WAITING);
    }

    /** @param audioWaitingFrames captured frames that may wait for the app before more are dropped */
    FakeHelper(JvmChannel channel, Engine engine, Log log, int audioWaitingFrames) {
        this.channel = channel;
        this.engine = engine;
        this.log = log;
        this.audioWaitingFrames = audioWaitingFrames;
    }

    /**
     * Starts serving, as AudioHelper.main does: a helper already running is first asked to hand over
     * (REPLACE), then this one is announced to the app. Returns once the app holds its Binder.
     */
    synchronized void start() throws IOException {
        if (running()) return;
        gate.thaw();
        HelperService.replaceRunning(channel.runningHelper(), log);
        final PeerPolicy policy = new PeerPolicy(JvmChannel.APP_UID, JvmChannel.APP_PACKAGE);
        final AnnouncedEndpoint[] endpoint = new AnnouncedEndpoint[1];
        final JvmChannel.JvmBinder binder = new JvmChannel.JvmBinder(new JvmChannel.Target() {
            @Override
            public Socket open(int callingUid, String callingProcess) throws IOException {
                String refusal = endpoint[0].admit(callingUid, callingProcess);
                if (refusal != null) throw new IOException(refusal);
                Socket[] pair = JvmSockets.pair();
                endpoint[0].opened(gate.wrap(new JvmSockets.End(pair[0], callingUid, callingProcess)));
                return pair[1];
            }
        });
        final CountDownLatch announced = new CountDownLatch(1);
        final HelperService[] self = new HelperService[1];
        final ThreadClock clock = new ThreadClock("vg-fake-helper-announcer", log);
        HelperAnnouncer announcer = new HelperAnnouncer(channel.providerAs(PeerPolicy.SHELL_UID), clock, log, announcing, new HelperAnnouncer.Listener() {
            @Override
            public void announced() {
                announcements.incrementAndGet();
                announced.countDown();
            }

            @Override
            public void appGone(String why) {
                self[0].stop("the app is gone: " + why);
            }
        });
        endpoint[0] = new AnnouncedEndpoint(announcer, binder, policy);
        final HelperService s = new HelperService(policy, endpoint[0], engine, log, audioWaitingFrames);
        self[0] = s;
        service = s;
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    s.run();
                } catch (IOException e) {
                    log.log(Log.ERROR, "the fake helper failed: " + e.getMessage(), null);
                } finally {
                    // The process exits: its Binder dies, and the app hears of it.
                    s.stop("exited");
                    binder.die();
                    clock.shutdown();
                }
            }
        }, "vg-fake-helper");
        t.setDaemon(true);
        t.start();
        try {
            if (!announced.await(10, TimeUnit.SECONDS)) throw new IOException("the fake helper was not announced to the app within 10 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    /** Dies as a helper does at a reboot: its connections close, its Binder dies. */
    synchronized void kill() {
        if (service != null) service.stop("killed by the test");
    }

    /** Stays connected but answers nothing and sends nothing (a hung process). */
    void freeze() {
        gate.freeze();
    }

    /** Whether the helper is serving (it exits when the app asks it to, or is gone). */
    synchronized boolean running() {
        return service != null && !service.isStopping();
    }

    /** How often this helper was announced to the app (again after each restart of the app's process). */
    int announcements() {
        return announcements.get();
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
        private Runnable endCurrent;
        /** What the real engine's log holds, in its shape: each start tried, and how it went. */
        private final org.json.JSONArray attempts = new org.json.JSONArray();

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
                d.put("attempts", new org.json.JSONArray(attempts.toString()));
            } catch (org.json.JSONException e) {
                throw new IllegalStateException(e);
            }
            return d;
        }

        @Override
        public Running startCapture(final FrameAdapter.FrameSink sink, final Ended ended) {
            final ToneAudioPort.Source source = sources.newSource();
            synchronized (this) {
                captures++;
                attempt("simulated@16000", null);
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
            Running running = new Running() {
                @Override
                public void stop() {
                    task.cancel(false);
                    capture.stop();
                }
            };
            final Running self = running;
            synchronized (this) {
                // As the phone's record does when AudioManager releases it: stops, then says so.
                endCurrent = new Runnable() {
                    @Override
                    public void run() {
                        self.stop();
                        ended.captureEnded("AudioRecord.read returned -6 (the record was released)");
                    }
                };
            }
            return running;
        }

        /** Ends the capture under way by itself, as the platform does when it takes the record away mid-call. */
        void endCapture() {
            Runnable r;
            synchronized (this) {
                r = endCurrent;
                endCurrent = null;
            }
            if (r != null) r.run();
        }

        @Override
        public Injection startInjection() throws Exception {
            if (listenOnly) {
                Exception refused = new UnsupportedOperationException("this fake helper is listen-only");
                attempt("injection", refused);
                throw refused;
            }
            attempt("injection", null);
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

        private synchronized void attempt(String way, Exception failure) {
            try {
                attempts.put(new org.json.JSONObject().put("way", way).put("result", failure == null ? "opened" : "failed")
                        .put("exception", failure == null ? "" : failure.getClass().getSimpleName())
                        .put("message", failure == null ? "" : failure.getMessage()).put("waitedMs", 0));
            } catch (org.json.JSONException e) {
                throw new IllegalStateException(e);
            }
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
            return new JvmSockets.Forwarding(c) {
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
