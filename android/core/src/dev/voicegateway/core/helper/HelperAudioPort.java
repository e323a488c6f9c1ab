package dev.voicegateway.core.helper;

import dev.voicegateway.core.Clock;
import dev.voicegateway.core.Iso8601;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.Storage;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.AudioPort;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The app's side of the audio helper: an {@link AudioPort} over a {@link HelperLink}. It keeps
 * trying to reach the helper, checks that the other end is the shell, shakes hands (version,
 * capabilities), starts and stops capture and injection with each call, passes frames both ways,
 * and notices within seconds that the helper is gone (end of stream, or no answer to a ping), so
 * that health.audio turns {@code stopped} at once. Decisions run on its own {@link Clock}; captured
 * frames go to the listener straight from the reading thread.
 */
public final class HelperAudioPort implements AudioPort {
    public static final class Config {
        /** Between attempts to reach a helper that is not there (after a reboot, until it is started). */
        public long retryMs = 3000;
        /** A helper silent this long is pinged. */
        public long pingIntervalMs = 2000;
        /** ... and given up on when it then stays silent this much longer. */
        public long pingTimeoutMs = 3000;
        /** From connecting to the helper's CAPABILITIES. */
        public long helloTimeoutMs = 3000;
        /** Frames to inject that may wait for the helper before more are dropped (MessageWriter). */
        public int audioWaitingFrames = MessageWriter.MAX_AUDIO_WAITING;
    }

    /** Remembers that a helper ran here, and what it could do (state stopped, not pairing_required). */
    static final String STORAGE = "audio-helper.json";

    /** The connection's lifecycle. */
    private enum Link { IDLE, CONNECTING, HANDSHAKE, READY, CLOSED }

    private final HelperLink link;
    private final Storage storage;
    private final Clock clock;
    private final Log log;
    private final Config config;

    // Touched on the clock's thread only.
    private Link state = Link.IDLE;
    private int generation;
    private HelperLink.Connection connection;
    private Clock.Timer retryTimer;
    private Clock.Timer helloTimer;
    private Clock.Timer watchdog;
    private boolean callWanted;
    private int captureRestarts;
    /** Times per call a capture that ended by itself is asked for again. */
    static final int MAX_CAPTURE_RESTARTS = 3;
    private int nextPing;

    // Read from any thread.
    private volatile Listener listener;
    private volatile MessageWriter writer;
    private volatile boolean ready;
    private volatile AudioCapabilities capabilities;
    private volatile String note = "";
    private volatile String problem;
    private volatile boolean capturing;
    private volatile boolean injecting;
    private volatile long lastReceived;
    private volatile boolean seen;
    private volatile boolean selfStartPaired;
    private volatile long injected;
    private volatile int helperUid = -1;
    private volatile JSONObject diagnostics;
    private volatile Runnable diagnosticsListener;

    public HelperAudioPort(HelperLink link, Storage storage, Clock clock, Log log, Config config) {
        this.link = link;
        this.storage = storage;
        this.clock = clock;
        this.log = log;
        this.config = config;
        MessageWriter.checkAudioBound(config.audioWaitingFrames);
        load();
    }

    /** Starts reaching for the helper (and keeps at it while it is not there). */
    public void start() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (state == Link.IDLE || state == Link.CLOSED) connect();
            }
        });
    }

    /**
     * A helper has just announced itself (HelperDirectory): try it now rather than at the next
     * retry. A connection already up is left alone (a replacing helper closes it, and the port
     * then comes here through its retry).
     */
    public void retryNow() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (state == Link.IDLE && retryTimer != null) connect();
            }
        });
    }

    /** Lets go of the helper (the app's process ends); the helper keeps running for the next one. */
    public void close() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                drop(null);
                cancel(retryTimer);
                state = Link.CLOSED;
            }
        });
    }

    /** Asks the helper to exit (SHUTDOWN); it then reads as stopped. */
    public void shutdownHelper() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                MessageWriter w = writer;
                if (w != null) w.send(HelperMessage.of(HelperMessage.SHUTDOWN));
            }
        });
    }

    // ---- AudioPort ------------------------------------------------------------------------------

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public String state() {
        if (ready) return Protocol.AUDIO_RUNNING;
        return seen || selfStartPaired ? Protocol.AUDIO_STOPPED : Protocol.AUDIO_PAIRING_REQUIRED;
    }

    /**
     * The app holds a key paired with the phone's own Wireless debugging (issue 24, core/adb): no
     * helper running then reads {@code stopped} (the app can start one), not {@code pairing_required}.
     * Set false again when adbd refuses the key (the pairing was forgotten).
     */
    public void setSelfStartPaired(boolean paired) {
        selfStartPaired = paired;
    }

    @Override
    public boolean canInject() {
        AudioCapabilities c = capabilities;
        return ready && c != null && c.inject;
    }

    @Override
    public AudioCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public void startCall() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                callWanted = true;
                captureRestarts = 0;
                if (state == Link.READY) sendStart();
            }
        });
    }

    @Override
    public void stopCall() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                callWanted = false;
                MessageWriter w = writer;
                if (state == Link.READY && w != null) {
                    w.send(HelperMessage.of(HelperMessage.STOP_CAPTURE));
                    w.send(HelperMessage.of(HelperMessage.STOP_INJECTION));
                }
            }
        });
    }

    @Override
    public void play(byte[] frame) {
        MessageWriter w = writer;
        // Listen-only: the frame is discarded here, never queued.
        if (w != null && canInject() && injecting && w.send(HelperMessage.audio(frame))) injected++;
    }

    /** Why the helper is not (fully) working, for the status screen; null when all is well. */
    public String problem() {
        return problem;
    }

    /** Why the helper cannot do more (listen-only, no capture on this Android), or "". */
    public String note() {
        return note;
    }

    /** Whether the helper says it captures / injects now (its last STATUS). */
    public boolean capturing() {
        return capturing;
    }

    public boolean injecting() {
        return injecting;
    }

    /**
     * The uid the last connection to the helper reported ({@code peerUid()} at connect): 2000, the
     * shell, on a phone; -1 when the transport cannot tell (TCP on the host) or before any.
     */
    public int helperUid() {
        return helperUid;
    }

    /** The helper's last DIAGNOSTICS (what its engine tried and saw), or null before any. Kept after it stops. */
    public JSONObject lastDiagnostics() {
        JSONObject d = diagnostics;
        if (d == null) return null;
        try {
            return new JSONObject(d.toString());
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs on the port's clock after each DIAGNOSTICS the helper sends (the self-test's cue); null: none. */
    public void setDiagnosticsListener(Runnable listener) {
        this.diagnosticsListener = listener;
    }

    /** Frames handed to the helper to inject (play() runs on one thread: the core's clock). */
    public long framesInjected() {
        return injected;
    }

    /** Frames to inject that were dropped because the helper was not taking them fast enough. */
    public long framesDropped() {
        MessageWriter w = writer;
        return w == null ? 0 : w.audioDropped();
    }

    // ---- the connection --------------------------------------------------------------------------

    private void connect() {
        cancel(retryTimer);
        retryTimer = null;
        state = Link.CONNECTING;
        final int gen = ++generation;
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                HelperLink.Connection c = null;
                try {
                    c = link.open();
                    int uid = c.peerUid();
                    helperUid = uid;
                    if (uid >= 0 && !PeerPolicy.isHelper(uid)) {
                        throw new IOException("the process on the helper's socket is uid " + uid + ", not the shell: not the audio helper");
                    }
                    final HelperLink.Connection opened = c;
                    clock.execute(new Runnable() {
                        @Override
                        public void run() {
                            opened(gen, opened);
                        }
                    });
                } catch (final IOException e) {
                    if (c != null) c.close();
                    clock.execute(new Runnable() {
                        @Override
                        public void run() {
                            if (gen != generation) return;
                            // "Nobody listens" is the normal state until the helper is started: not a problem to show.
                            failed(gen, e.getMessage() != null && e.getMessage().contains("not the audio helper") ? e.getMessage() : null);
                        }
                    });
                }
            }
        }, "vg-helper-connect");
        t.setDaemon(true);
        t.start();
    }

    private void opened(final int gen, final HelperLink.Connection c) {
        if (gen != generation || state != Link.CONNECTING) {
            c.close();
            return;
        }
        connection = c;
        final InputStream in;
        try {
            in = c.input();
            writer = new MessageWriter(c.output(), "vg-helper-writer", new MessageWriter.Failure() {
                @Override
                public void onWriteFailed(final IOException error) {
                    clock.execute(new Runnable() {
                        @Override
                        public void run() {
                            failed(gen, "The audio helper's connection broke (" + error.getMessage() + ").");
                        }
                    });
                }
            }, config.audioWaitingFrames);
        } catch (IOException e) {
            failed(gen, "Cannot talk to the audio helper: " + e.getMessage());
            return;
        }
        state = Link.HANDSHAKE;
        lastReceived = clock.elapsed();
        writer.send(HelperMessage.hello(HelperCodec.VERSION));
        helloTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (gen == generation && state == Link.HANDSHAKE) {
                    failed(gen, "The audio helper did not answer within " + config.helloTimeoutMs / 1000.0 + " s.");
                }
            }
        }, config.helloTimeoutMs);
        Thread reader = new Thread(new Runnable() {
            @Override
            public void run() {
                read(gen, in);
            }
        }, "vg-helper-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** The reading thread: frames straight to the listener, everything else to the clock. */
    private void read(final int gen, InputStream in) {
        String why;
        try {
            while (true) {
                final HelperMessage m = HelperCodec.read(in);
                lastReceived = clock.elapsed();
                if (m.type == HelperMessage.AUDIO) {
                    Listener l = listener;
                    if (l != null && ready) l.onCapturedFrame(m.frame());
                    continue;
                }
                clock.execute(new Runnable() {
                    @Override
                    public void run() {
                        if (gen == generation) received(gen, m);
                    }
                });
            }
        } catch (EOFException e) {
            why = "The audio helper stopped (its connection closed).";
        } catch (IOException e) {
            why = "The audio helper's connection broke (" + e.getMessage() + ").";
        }
        final String reason = why;
        clock.execute(new Runnable() {
            @Override
            public void run() {
                failed(gen, reason);
            }
        });
    }

    private void received(int gen, HelperMessage m) {
        switch (m.type) {
            case HelperMessage.HELLO:
                if (m.version != HelperCodec.VERSION) {
                    failed(gen, "The running audio helper speaks version " + m.version + " of the framing, this app " + HelperCodec.VERSION
                            + ": start the helper again with the command this app shows.");
                }
                break;
            case HelperMessage.CAPABILITIES:
                note = m.note;
                boolean changed = !m.capabilities.equals(capabilities);
                capabilities = m.capabilities;
                if (changed || !seen) remember();
                if (state == Link.HANDSHAKE) {
                    cancel(helloTimer);
                    state = Link.READY;
                    ready = true;
                    problem = null;
                    log.log(Log.INFO, "audio helper running: " + m.capabilities + (m.note.isEmpty() ? "" : " (" + m.note + ")"), null);
                    if (callWanted) sendStart();
                    scheduleWatchdog(gen);
                    changed();
                } else if (changed) {
                    log.log(Log.INFO, "audio helper capabilities now " + m.capabilities, null);
                    // The call started while the helper last said listen-only, and interception opened now: speak too.
                    MessageWriter w = writer;
                    if (callWanted && m.capabilities.inject && !injecting && w != null) w.send(HelperMessage.of(HelperMessage.START_INJECTION));
                    changed();
                }
                break;
            case HelperMessage.STATUS:
                boolean lost = capturing && !m.capturing;
                capturing = m.capturing;
                injecting = m.injecting;
                if (lost && callWanted) captureAgain(gen);
                if (!m.text.isEmpty()) {
                    problem = "The audio helper: " + m.text;
                    log.log(Log.WARN, problem, null);
                }
                break;
            case HelperMessage.ERROR:
                failed(gen, "The audio helper refused the app: " + m.text);
                break;
            case HelperMessage.DIAGNOSTICS:
                try {
                    diagnostics = new JSONObject(m.text);
                } catch (JSONException e) {
                    log.log(Log.WARN, "the audio helper's DIAGNOSTICS is not a JSON object; ignored", null);
                    break;
                }
                Runnable r = diagnosticsListener;
                if (r != null) r.run();
                break;
            default:
                // PONG: lastReceived already moved.
                break;
        }
    }

    /**
     * The helper's capture ended by itself during the call (the platform took the record away): ask
     * for it again after a pause, a few times per call, so a passing loss does not silence the rest.
     */
    private void captureAgain(final int gen) {
        if (captureRestarts >= MAX_CAPTURE_RESTARTS) {
            log.log(Log.WARN, "the helper's capture ended " + captureRestarts + " times in this call; not asking again", null);
            return;
        }
        captureRestarts++;
        clock.schedule(new Runnable() {
            @Override
            public void run() {
                MessageWriter w = writer;
                if (gen == generation && state == Link.READY && callWanted && !capturing && w != null) w.send(HelperMessage.of(HelperMessage.START_CAPTURE));
            }
        }, config.retryMs);
    }

    private void sendStart() {
        MessageWriter w = writer;
        if (w == null) return;
        w.send(HelperMessage.of(HelperMessage.START_CAPTURE));
        AudioCapabilities c = capabilities;
        if (c != null && c.inject) w.send(HelperMessage.of(HelperMessage.START_INJECTION));
    }

    /** Pings a silent helper, and gives it up when it stays silent past the deadline. */
    private void scheduleWatchdog(final int gen) {
        watchdog = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (gen != generation || state != Link.READY) return;
                long silent = clock.elapsed() - lastReceived;
                if (silent > config.pingIntervalMs + config.pingTimeoutMs) {
                    failed(gen, "The audio helper stopped answering (nothing for " + silent / 1000.0 + " s).");
                    return;
                }
                MessageWriter w = writer;
                if (silent >= config.pingIntervalMs && w != null) w.send(HelperMessage.ping(++nextPing));
                scheduleWatchdog(gen);
            }
        }, Math.max(50, Math.min(config.pingIntervalMs, config.pingTimeoutMs) / 2));
    }

    /** The connection of {@code gen} is over; {@code why} (null: nobody was listening) is shown. */
    private void failed(int gen, String why) {
        if (gen != generation || state == Link.CLOSED) return;
        boolean wasReady = state == Link.READY;
        drop(why);
        if (wasReady) log.log(Log.WARN, why, null);
        retryTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (state == Link.IDLE) connect();
            }
        }, config.retryMs);
        if (wasReady) changed();
    }

    private void drop(String why) {
        generation++;
        cancel(helloTimer);
        cancel(watchdog);
        MessageWriter w = writer;
        writer = null;
        if (w != null) w.close();
        if (connection != null) connection.close();
        connection = null;
        ready = false;
        capturing = false;
        injecting = false;
        state = Link.IDLE;
        if (why != null) problem = why;
    }

    private void changed() {
        Listener l = listener;
        if (l != null) l.onStateChanged();
    }

    private static void cancel(Clock.Timer t) {
        if (t != null) t.cancel();
    }

    // ---- what is remembered ----------------------------------------------------------------------

    private void load() {
        try {
            String text = storage.read(STORAGE);
            if (text == null) return;
            JSONObject o = new JSONObject(text);
            seen = true;
            capabilities = AudioCapabilities.fromJson(o.optJSONObject("capabilities"));
            note = o.optString("note", "");
        } catch (IOException e) {
            log.log(Log.WARN, "cannot read " + STORAGE + ": " + e.getMessage(), null);
        } catch (JSONException e) {
            log.log(Log.WARN, STORAGE + " is damaged; the helper counts as never started", null);
        }
    }

    private void remember() {
        seen = true;
        try {
            JSONObject o = new JSONObject();
            o.put("seenAt", Iso8601.format(clock.now()));
            o.put("capabilities", capabilities.toJson());
            o.put("note", note);
            storage.write(STORAGE, o.toString());
        } catch (IOException e) {
            log.log(Log.WARN, "cannot write " + STORAGE + ": " + e.getMessage(), null);
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }
}
