package dev.voicegateway.core;

import dev.voicegateway.core.ws.HandshakeException;
import dev.voicegateway.core.ws.WebSocketClient;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The one phone socket (phone-protocol.md section 2): connects with the device token, says hello
 * and waits for welcome, pings and drops a silent socket, and after any drop tries again with
 * backoff and jitter. What the messages mean is {@link PhoneClient}'s business. Runs on the core's
 * clock: every method is called there, and every {@link Events} callback comes from there.
 */
final class GatewayLink {
    /** What the link tells the phone client. */
    interface Events {
        /** The hello for a new socket (it names the call in progress); the link sends it. */
        JSONObject hello();

        /** The socket was welcomed: health and the outbox may go out. */
        void onWelcome();

        /** A text message of the gateway, parsed. */
        void onMessage(JSONObject message);

        /** A binary message of the gateway (call audio), after welcome. */
        void onFrame(byte[] frame);

        /** The welcomed socket is gone (the link already waits to retry, or stopped). */
        void onDown();

        /** The gateway refused the token (401) or closed with 4001: the pairing is over. */
        void onRevoked(String why);

        /** The link's state or its last error changed. */
        void onChanged();
    }

    /** Opens a socket: the real WebSocket upgrade, or a test's stand-in. */
    interface Connector {
        WebSocketClient connect(Credentials c) throws IOException;
    }

    private final PhoneClient.Config config;
    private final Clock clock;
    private final Connector connector;
    /** Where the blocking connect runs: a thread of its own per attempt, or inline in tests. */
    private final Executor connecting;
    private final Log log;
    private final Events events;
    private final Random random;

    /** STOPPED, CONNECTING, CONNECTED or WAITING_TO_RETRY (UNPAIRED is the client's). */
    private PhoneStatus.Link state = PhoneStatus.Link.STOPPED;
    private Credentials credentials;
    /** Bumped by every new attempt and every stop: callbacks of an older socket are ignored. */
    private int generation;
    private WebSocketClient socket;
    private boolean welcomed;
    private int attempt;
    private Clock.Timer retryTimer;
    private Clock.Timer welcomeTimer;
    private Clock.Timer watchdogTimer;
    private Clock.Timer probeTimer;
    private long lastPingAt;
    private String lastError;
    private long lastErrorAt;
    private long retryAt;
    private Wakefulness wake = Wakefulness.NONE;
    /** Wall-clock time the link lost its socket (or first failed), for the wake lock's budget; 0 while up. */
    private long downSince;

    /**
     * How long after losing the socket the CPU is kept awake between attempts. Past it only the
     * alarm wakes the phone (in Doze at most about every 9 minutes): a gateway that is down for
     * hours must not keep the phone from sleeping.
     */
    static final long AWAKE_BUDGET_MS = 2 * 60 * 1000;

    GatewayLink(PhoneClient.Config config, Clock clock, Connector connector, Executor connecting, Random random, Log log, Events events) {
        this.config = config;
        this.clock = clock;
        this.connector = connector;
        this.connecting = connecting;
        this.random = random;
        this.log = log;
        this.events = events;
    }

    /** The real thing: the phone socket of phone-protocol.md, each attempt on a thread of its own. */
    static GatewayLink forGateway(final PhoneClient.Config config, Clock clock, final TlsConfig tls, Log log, Events events) {
        Connector upgrade = new Connector() {
            @Override
            public WebSocketClient connect(Credentials c) throws IOException {
                Map<String, String> headers = Collections.singletonMap("Authorization", "Bearer " + c.deviceToken);
                return WebSocketClient.connect(c.gateway.ws("/v1/phone"), headers, tls, config.socket);
            }
        };
        Executor threads = new Executor() {
            @Override
            public void execute(Runnable attempt) {
                Thread t = new Thread(attempt, "vg-connect");
                t.setDaemon(true);
                t.start();
            }
        };
        return new GatewayLink(config, clock, upgrade, threads, new Random(), log, events);
    }

    void setWakefulness(Wakefulness wake) {
        this.wake = wake;
    }

    /** The app's alarm went off: a retry that the sleeping clock held back happens now. */
    void alarm() {
        if (state == PhoneStatus.Link.WAITING_TO_RETRY) {
            log.log(Log.INFO, "the alarm woke the phone to reconnect", null);
            retryNow();
        }
    }

    PhoneStatus.Link state() {
        return state;
    }

    boolean isWelcomed() {
        return welcomed;
    }

    /** The welcomed socket, or null. */
    WebSocketClient welcomedSocket() {
        return welcomed ? socket : null;
    }

    String lastError() {
        return lastError;
    }

    long lastErrorAt() {
        return lastErrorAt;
    }

    /** Wall-clock time of the next attempt, while WAITING_TO_RETRY. */
    long retryAt() {
        return retryAt;
    }

    void setError(String message) {
        lastError = message;
        lastErrorAt = clock.now();
    }

    void clearError() {
        lastError = null;
    }

    /** Connects with these credentials unless a socket is being opened or is open already. */
    void connect(final Credentials c) {
        credentials = c;
        if (retryTimer != null) retryTimer.cancel();
        retryTimer = null;
        if (state == PhoneStatus.Link.CONNECTING || state == PhoneStatus.Link.CONNECTED) return;
        state = PhoneStatus.Link.CONNECTING;
        attempt++;
        final int gen = ++generation;
        if (downSince == 0) downSince = clock.now();
        // The attempt itself (connect, TLS, upgrade, welcome) must not be cut short by sleep.
        wake.stayAwake(2L * config.socket.connectTimeoutMs + config.welcomeTimeoutMs);
        events.onChanged();
        connecting.execute(new Runnable() {
            @Override
            public void run() {
                try {
                    final WebSocketClient ws = connector.connect(c);
                    clock.execute(new Runnable() {
                        @Override
                        public void run() {
                            opened(gen, ws);
                        }
                    });
                } catch (IOException e) {
                    failed(gen, e);
                } catch (RuntimeException e) {
                    failed(gen, e);
                }
            }
        });
    }

    /** Tries at once instead of waiting for the next attempt. */
    void retryNow() {
        if (state == PhoneStatus.Link.WAITING_TO_RETRY && credentials != null) connect(credentials);
    }

    /** Closes the socket (or gives up the attempt under way) and stays offline. */
    void stop(int code, String reason) {
        generation++;
        if (retryTimer != null) retryTimer.cancel();
        retryTimer = null;
        cancelTimers();
        if (socket != null) socket.close(code, reason);
        boolean wasWelcomed = welcomed;
        socket = null;
        welcomed = false;
        state = PhoneStatus.Link.STOPPED;
        downSince = 0;
        wake.cancelAlarm();
        wake.maySleep();
        if (wasWelcomed) events.onDown();
    }

    /** The phone's network changed: retry at once, or make sure the open socket still answers. */
    void networkChanged() {
        if (state == PhoneStatus.Link.WAITING_TO_RETRY) retryNow();
        else if (welcomed) probe();
    }

    void send(JSONObject message) {
        if (socket != null) socket.sendText(message.toString());
    }

    /** Drops the TCP connection without a close frame, as a lost network would. */
    void dropSocket() {
        if (socket != null) socket.abort();
    }

    private void failed(final int gen, final Exception e) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (gen != generation) return;
                if (isTokenRefused(e)) {
                    revoked("The gateway no longer knows this phone (its token was revoked). Pair it again.");
                    return;
                }
                retryLater(describe(e));
            }
        });
    }

    /**
     * The gateway's own refusal of the token: 401 with the contract's error body. A 401 from
     * something else on the way (a proxy, a captive portal) is retried, not taken as an unpairing.
     */
    static boolean isTokenRefused(Exception e) {
        if (!(e instanceof HandshakeException) || ((HandshakeException) e).status != 401) return false;
        try {
            JSONObject error = new JSONObject(((HandshakeException) e).body).optJSONObject("error");
            return error != null && "UNAUTHORIZED".equals(error.optString("code"));
        } catch (JSONException notJson) {
            return false;
        }
    }

    private void opened(final int gen, WebSocketClient ws) {
        if (gen != generation) {
            ws.start(new Ignore());
            ws.close(WebSocketClient.NORMAL, "superseded");
            return;
        }
        socket = ws;
        welcomed = false;
        ws.start(new SocketListener(gen));
        send(events.hello());
        welcomeTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (gen != generation || welcomed || socket == null) return;
                setError("The gateway did not answer hello within " + config.welcomeTimeoutMs / 1000 + " s.");
                socket.abort();
            }
        }, config.welcomeTimeoutMs);
    }

    private void received(String text) {
        JSONObject msg;
        try {
            msg = new JSONObject(text);
        } catch (JSONException e) {
            log.log(Log.WARN, "the gateway sent a message that is not JSON", null);
            return;
        }
        if ("welcome".equals(msg.optString("type")) && !welcomed) {
            cancelTimers();
            welcomed = true;
            state = PhoneStatus.Link.CONNECTED;
            attempt = 0;
            downSince = 0;
            wake.cancelAlarm();
            wake.maySleep();
            lastError = null;
            lastPingAt = clock.elapsed();
            scheduleWatchdog();
            events.onMessage(msg);
            events.onWelcome();
            events.onChanged();
            return;
        }
        events.onMessage(msg);
    }

    private void closed(int code, String reason, Exception error) {
        boolean wasWelcomed = welcomed;
        socket = null;
        welcomed = false;
        cancelTimers();
        if (code == Protocol.CLOSE_REVOKED) {
            if (wasWelcomed) events.onDown();
            revoked("This phone was removed from the gateway. Pair it again.");
            return;
        }
        if (code == Protocol.CLOSE_REPLACED) {
            generation++;
            state = PhoneStatus.Link.STOPPED;
            downSince = 0;
            wake.cancelAlarm();
            wake.maySleep();
            setError("Another connection of this phone took over (close 4000). Connect again from the status screen.");
            if (wasWelcomed) events.onDown();
            events.onChanged();
            return;
        }
        String why = error != null ? describe(error) : "The gateway closed the socket (" + code + (reason.isEmpty() ? "" : " " + reason) + ").";
        log.log(Log.WARN, (wasWelcomed ? "socket lost: " : "socket closed before welcome: ") + why, null);
        retryLater(why);
        if (wasWelcomed) events.onDown();
    }

    private void revoked(String why) {
        stop(WebSocketClient.NORMAL, "unpaired");
        credentials = null;
        events.onRevoked(why);
    }

    private void retryLater(String why) {
        setError(why);
        state = PhoneStatus.Link.WAITING_TO_RETRY;
        long delay = Backoff.delayMs(Math.max(1, attempt), config.backoffInitialMs, config.backoffMaxMs, random);
        retryAt = clock.now() + delay;
        if (downSince == 0) downSince = clock.now();
        // The timer below stops while the CPU sleeps: soon after the loss a wake lock keeps it
        // running; the alarm is the backstop that wakes the phone for the attempt in any case.
        wake.alarmIn(delay);
        if (clock.now() - downSince < AWAKE_BUDGET_MS) wake.stayAwake(delay + 5000);
        else wake.maySleep();
        retryTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                retryTimer = null;
                retryNow();
            }
        }, delay);
        events.onChanged();
    }

    private void cancelTimers() {
        if (welcomeTimer != null) welcomeTimer.cancel();
        if (watchdogTimer != null) watchdogTimer.cancel();
        if (probeTimer != null) probeTimer.cancel();
        welcomeTimer = watchdogTimer = probeTimer = null;
    }

    /** Pings the gateway and drops a socket that has been silent past the liveness timeout. */
    private void scheduleWatchdog() {
        long tick = Math.max(250, Math.min(config.pingIntervalMs, config.livenessTimeoutMs) / 4);
        watchdogTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                WebSocketClient ws = socket;
                if (!welcomed || ws == null) return;
                long now = clock.elapsed();
                if (silentForMs(ws) > config.livenessTimeoutMs) {
                    setError("The gateway stopped answering (nothing for " + config.livenessTimeoutMs / 1000 + " s).");
                    ws.abort();
                    return;
                }
                if (now - lastPingAt >= config.pingIntervalMs) {
                    ws.ping();
                    lastPingAt = now;
                }
                scheduleWatchdog();
            }
        }, tick);
    }

    /** After a network change the old route may be gone: a ping must be answered soon. */
    private void probe() {
        final WebSocketClient ws = socket;
        if (ws == null) return;
        final long sentAt = System.nanoTime();
        ws.ping();
        if (probeTimer != null) probeTimer.cancel();
        probeTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                probeTimer = null;
                if (socket == ws && ws.lastReceivedNanos() < sentAt) {
                    setError("The socket did not survive the network change.");
                    ws.abort();
                }
            }
        }, config.probeTimeoutMs);
    }

    private static long silentForMs(WebSocketClient ws) {
        return (System.nanoTime() - ws.lastReceivedNanos()) / 1000000L;
    }

    /** A connection failure in words for the status screen. */
    private String describe(Exception e) {
        String where = credentials != null ? credentials.gateway.base() : "the gateway";
        if (e instanceof UnknownHostException) return "Cannot find the gateway's host (" + where + ").";
        if (e instanceof ConnectException) return "The gateway at " + where + " refused the connection.";
        if (e instanceof SocketTimeoutException) return "The gateway at " + where + " did not answer in time.";
        if (e instanceof SSLPeerUnverifiedException) return "TLS: " + e.getMessage() + ".";
        if (e instanceof SSLException) return "TLS with " + where + " failed (" + e.getMessage() + "). Is its certificate trusted by this phone?";
        if (e instanceof HandshakeException) {
            HandshakeException h = (HandshakeException) e;
            String message = null;
            try {
                JSONObject err = new JSONObject(h.body).optJSONObject("error");
                if (err != null) message = err.optString("message", null);
            } catch (JSONException ignored) {
                // not the contract's error body
            }
            return "The gateway refused the phone socket (HTTP " + h.status + (message != null ? ": " + message : "") + ").";
        }
        return "Connection to " + where + " failed: " + e.getMessage();
    }

    private final class SocketListener implements WebSocketClient.Listener {
        private final int gen;

        SocketListener(int gen) {
            this.gen = gen;
        }

        @Override
        public void onText(WebSocketClient ws, final String text) {
            clock.execute(new Runnable() {
                @Override
                public void run() {
                    if (gen == generation) received(text);
                }
            });
        }

        @Override
        public void onBinary(WebSocketClient ws, final byte[] data) {
            clock.execute(new Runnable() {
                @Override
                public void run() {
                    if (gen == generation && welcomed) events.onFrame(data);
                }
            });
        }

        @Override
        public void onPong(WebSocketClient ws) {
            // lastReceivedNanos already moved; nothing else to do.
        }

        @Override
        public void onClose(WebSocketClient ws, final int code, final String reason, final Exception error) {
            clock.execute(new Runnable() {
                @Override
                public void run() {
                    if (gen == generation) closed(code, reason, error);
                }
            });
        }
    }

    /** For a socket that opened after its attempt was given up: it is only closed. */
    private static final class Ignore implements WebSocketClient.Listener {
        @Override
        public void onText(WebSocketClient ws, String text) {
        }

        @Override
        public void onBinary(WebSocketClient ws, byte[] data) {
        }

        @Override
        public void onPong(WebSocketClient ws) {
        }

        @Override
        public void onClose(WebSocketClient ws, int code, String reason, Exception error) {
        }
    }
}
