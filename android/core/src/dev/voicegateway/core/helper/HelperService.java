package dev.voicegateway.core.helper;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.FrameAdapter;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The audio helper's side of the framing: announces itself (asking a helper already running to
 * hand over first), accepts only the app's uid for audio and the shell's for SHUTDOWN/REPLACE,
 * starts and stops capture and injection as the app asks, and exits when told to. The same code
 * runs as the shell on the phone ({@code dev.voicegateway.app.helper.AudioHelper}) and in the
 * host's fake helper; only the endpoint and the engine differ.
 */
public final class HelperService {
    /** How long a peer has for its HELLO, and a replaced helper to close the connection that asked it to. */
    static final int HELLO_TIMEOUT_MS = 5000;
    static final long HANDOVER_MS = 5000;

    private final PeerPolicy policy;
    private final HelperEndpoint endpoint;
    private final CallAudioEngine engine;
    private final Log log;
    private final int audioWaitingFrames;
    private final List<Session> sessions = new ArrayList<Session>();
    private Session app;
    private volatile boolean stopping;
    private volatile String stopReason = "";

    public HelperService(PeerPolicy policy, HelperEndpoint endpoint, CallAudioEngine engine, Log log) {
        this(policy, endpoint, engine, log, MessageWriter.MAX_AUDIO_WAITING);
    }

    /** @param audioWaitingFrames captured frames that may wait for the app before more are dropped (MessageWriter) */
    public HelperService(PeerPolicy policy, HelperEndpoint endpoint, CallAudioEngine engine, Log log, int audioWaitingFrames) {
        this.audioWaitingFrames = MessageWriter.checkAudioBound(audioWaitingFrames);
        this.policy = policy;
        this.endpoint = endpoint;
        this.engine = engine;
        this.log = log;
    }

    /**
     * Asks a helper that is already serving on {@code link} to stop and exit, and waits
     * (up to five seconds) until it closes the connection. False when no helper answered.
     */
    public static boolean replaceRunning(HelperLink link, Log log) {
        HelperLink.Connection c;
        try {
            c = link.open();
        } catch (IOException e) {
            return false;
        }
        try {
            c.setReadTimeout((int) HANDOVER_MS);
            c.output().write(HelperCodec.encode(HelperMessage.hello(HelperCodec.VERSION)));
            c.output().write(HelperCodec.encode(HelperMessage.of(HelperMessage.REPLACE)));
            c.output().flush();
            InputStream in = c.input();
            // Whatever it says (its HELLO, or an ERROR from an older version), it is done once it closes.
            while (in.read() >= 0) {
                // drain
            }
            log.log(Log.INFO, "the helper that was running has handed over", null);
        } catch (IOException e) {
            log.log(Log.WARN, "the running helper did not hand over cleanly: " + e.getMessage(), null);
        } finally {
            c.close();
        }
        return true;
    }

    /** Starts taking connections (retrying for a while if the endpoint cannot yet), then serves until {@link #stop}. */
    public void run() throws IOException {
        long deadline = System.nanoTime() + HANDOVER_MS * 1000000L;
        while (true) {
            try {
                endpoint.listen();
                break;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || stopping) throw e;
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    throw new IOException("interrupted while starting to listen");
                }
            }
        }
        log.log(Log.INFO, "audio helper serving uid " + policy.appUid() + "; " + engine.capabilities() + " " + engine.note(), null);
        while (!stopping) {
            HelperLink.Connection c;
            try {
                c = endpoint.accept();
            } catch (IOException e) {
                if (stopping) break;
                throw e;
            }
            final Session s = new Session(c);
            synchronized (this) {
                if (stopping) {
                    c.close();
                    break;
                }
                sessions.add(s);
            }
            Thread t = new Thread(new Runnable() {
                @Override
                public void run() {
                    s.serve();
                }
            }, "vg-helper-session");
            t.setDaemon(true);
            t.start();
        }
        log.log(Log.INFO, "audio helper stopped: " + stopReason, null);
    }

    /** Stops serving: no more connections are taken, every connection closed, capture and injection stopped. */
    public void stop(String reason) {
        List<Session> all;
        synchronized (this) {
            if (stopping) return;
            stopping = true;
            stopReason = reason;
            all = new ArrayList<Session>(sessions);
        }
        endpoint.close();
        for (Session s : all) s.end(true);
    }

    public boolean isStopping() {
        return stopping;
    }

    private void becomeApp(Session s) {
        Session previous;
        synchronized (this) {
            previous = app;
            app = s;
        }
        // A newer connection of the app (its process started again) takes over the call's audio.
        if (previous != null && previous != s) previous.end(false);
    }

    private final class Session {
        private final HelperLink.Connection connection;
        private volatile MessageWriter writer;
        private PeerPolicy.Role role = PeerPolicy.Role.REFUSED;
        private CallAudioEngine.Running capture;
        private int captureGeneration;
        private volatile CallAudioEngine.Injection injection;
        private AudioCapabilities announced;
        private String problem = "";
        private boolean ended;

        Session(HelperLink.Connection connection) {
            this.connection = connection;
        }

        void serve() {
            try {
                int uid = connection.peerUid();
                role = policy.roleOf(uid, connection.peerProcess());
                writer = new MessageWriter(connection.output(), "vg-helper-writer", new MessageWriter.Failure() {
                    @Override
                    public void onWriteFailed(IOException error) {
                        end(false);
                    }
                }, audioWaitingFrames);
                if (role == PeerPolicy.Role.REFUSED) {
                    log.log(Log.WARN, "refused a connection from uid " + uid + " (only the app, uid " + policy.appUid() + ", and the shell may connect)", null);
                    refuse("uid " + uid + " may not use the audio helper");
                    return;
                }
                connection.setReadTimeout(HELLO_TIMEOUT_MS);
                InputStream in = connection.input();
                HelperMessage hello = HelperCodec.read(in);
                if (hello.type != HelperMessage.HELLO) {
                    refuse("the first message must be HELLO");
                    return;
                }
                if (hello.version != HelperCodec.VERSION) {
                    refuse("this helper speaks version " + HelperCodec.VERSION + " of the framing, not " + hello.version
                            + "; start the helper of the installed app again");
                    return;
                }
                connection.setReadTimeout(0);
                writer.send(HelperMessage.hello(HelperCodec.VERSION));
                if (role == PeerPolicy.Role.APP) {
                    becomeApp(this);
                    announce();
                    diagnose();
                }
                while (true) handle(HelperCodec.read(in));
            } catch (EOFException e) {
                // the peer went away
            } catch (IOException e) {
                if (!ended && !stopping) log.log(Log.WARN, "helper connection failed: " + e.getMessage(), null);
            } finally {
                end(false);
            }
        }

        private void handle(HelperMessage m) {
            if (!PeerPolicy.allows(role, m.type)) {
                refuse("a " + role + " peer may not send " + HelperCodec.name(m.type));
                return;
            }
            switch (m.type) {
                case HelperMessage.START_CAPTURE:
                    startCapture();
                    break;
                case HelperMessage.STOP_CAPTURE:
                    synchronized (this) {
                        stopCapture();
                        report();
                    }
                    break;
                case HelperMessage.START_INJECTION:
                    startInjection();
                    break;
                case HelperMessage.STOP_INJECTION:
                    synchronized (this) {
                        stopInjection();
                        report();
                    }
                    break;
                case HelperMessage.AUDIO: {
                    CallAudioEngine.Injection i = injection;
                    if (i != null) i.write(m.frame());
                    break;
                }
                case HelperMessage.PING:
                    writer.send(HelperMessage.pong(m.token));
                    break;
                case HelperMessage.SHUTDOWN:
                    log.log(Log.INFO, "asked to shut down by the " + (role == PeerPolicy.Role.APP ? "app" : "shell"), null);
                    writer.drain(500);
                    stop("asked to shut down");
                    break;
                case HelperMessage.REPLACE:
                    log.log(Log.INFO, "a newly started helper takes over", null);
                    stop("replaced by a newly started helper");
                    break;
                default:
                    // HELLO again, or what only the helper sends: nothing to do.
                    break;
            }
        }

        private synchronized void startCapture() {
            if (ended) return;
            if (capture == null) {
                final MessageWriter w = writer;
                final int gen = ++captureGeneration;
                try {
                    capture = engine.startCapture(new FrameAdapter.FrameSink() {
                        @Override
                        public void onFrame(byte[] frame) {
                            w.send(HelperMessage.audio(frame));
                        }
                    }, new CallAudioEngine.Ended() {
                        @Override
                        public void captureEnded(String why) {
                            lost(gen, why);
                        }
                    });
                    problem = "";
                } catch (Exception e) {
                    problem = "capture failed: " + describe(e);
                    log.log(Log.WARN, problem, e);
                }
            }
            announce();
            report();
            diagnose();
        }

        /** The capture of {@code gen} ended by itself: STATUS says so, and the app may ask again. */
        private synchronized void lost(int gen, String why) {
            if (ended || capture == null || gen != captureGeneration) return;
            capture = null;
            problem = "capture ended: " + why;
            log.log(Log.WARN, problem, null);
            report();
            diagnose();
        }

        private synchronized void startInjection() {
            if (ended) return;
            if (injection == null) {
                try {
                    injection = engine.startInjection();
                } catch (Exception e) {
                    problem = "injection failed: " + describe(e);
                    log.log(Log.WARN, problem, e);
                }
            }
            report();
            diagnose();
        }

        private void stopCapture() {
            if (capture != null) capture.stop();
            capture = null;
        }

        private void stopInjection() {
            if (injection != null) injection.stop();
            injection = null;
        }

        /** CAPABILITIES when they differ from what this peer last heard. */
        private void announce() {
            AudioCapabilities now = engine.capabilities();
            if (now.equals(announced)) return;
            announced = now;
            writer.send(HelperMessage.capabilities(now, engine.note()));
        }

        private void report() {
            writer.send(HelperMessage.status(capture != null, injection != null, problem));
        }

        /** DIAGNOSTICS: what the engine tried and saw, for the app's self-test (docs/android.md). */
        private void diagnose() {
            String json;
            try {
                json = HelperCodec.diagnosticsJson(engine.diagnostics());
            } catch (RuntimeException e) {
                // The report must never cost the call its audio: say what broke instead.
                String what = e.getClass().getName() + ": " + e.getMessage();
                json = "{\"error\":" + org.json.JSONObject.quote(what.length() > 500 ? what.substring(0, 500) : what) + "}";
            }
            writer.send(HelperMessage.diagnostics(json));
        }

        private void refuse(String reason) {
            writer.send(HelperMessage.error(reason));
            writer.drain(1000);
            end(false);
        }

        /** Ends this connection; {@code flush}: let queued messages go first (shutting down). */
        void end(boolean flush) {
            synchronized (this) {
                if (ended) return;
                ended = true;
                stopCapture();
                stopInjection();
            }
            if (writer != null) {
                if (flush) writer.drain(500);
                writer.close();
            }
            connection.close();
            synchronized (HelperService.this) {
                sessions.remove(this);
                if (app == this) app = null;
            }
        }
    }

    private static String describe(Exception e) {
        String m = e.getMessage();
        return m == null || m.isEmpty() ? e.getClass().getSimpleName() : m;
    }
}
