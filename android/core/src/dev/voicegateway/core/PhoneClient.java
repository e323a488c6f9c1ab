package dev.voicegateway.core;

import dev.voicegateway.core.audio.AudioPort;
import dev.voicegateway.core.audio.FramePipe;
import dev.voicegateway.core.ws.HandshakeException;
import dev.voicegateway.core.ws.WebSocketClient;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The phone's side of phone-protocol.md: pairing, the one phone socket with hello/welcome, health
 * reports, pings and reconnects, commands and their acks, the event outbox, and the call's frames.
 * Everything it decides runs on the {@link Clock}'s thread; its public methods may be called from
 * any thread.
 */
public final class PhoneClient {
    /** Sees every status change and every protocol message (the host's test harness, the UI). */
    public interface Observer {
        void onStatus(PhoneStatus status);

        /** A protocol message sent ({@code outgoing}) or received. Messages never hold the device token. */
        void onMessage(boolean outgoing, JSONObject message);
    }

    public static final class Config {
        public long healthIntervalMs = 60000;
        public long pingIntervalMs = 20000;
        /** Nothing at all from the gateway for this long (it pings every 20 s): the socket is dead. */
        public long livenessTimeoutMs = 30000;
        public long welcomeTimeoutMs = 10000;
        /** After a network change, a socket that does not answer a ping within this is dropped. */
        public long probeTimeoutMs = 10000;
        public long backoffInitialMs = 1000;
        public long backoffMaxMs = 30000;
        public WebSocketClient.Options socket = new WebSocketClient.Options();
    }

    static final String CREDENTIALS = "credentials.json";

    private final Config config;
    private final DeviceInfo info;
    private final Telephony telephony;
    private final AudioPort audio;
    private final DeviceStatus deviceStatus;
    private final Storage storage;
    private final Clock clock;
    private final TlsConfig tls;
    private final Log log;
    private final Random random = new Random();
    private final Outbox outbox;
    private final CallRegistry calls;
    private final DtmfPlayer dtmf;
    private final CommandDispatcher dispatcher;
    private final FramePipe pipe;
    private final List<Observer> observers = new CopyOnWriteArrayList<Observer>();

    // State, touched only on the clock's thread.
    private Credentials credentials;
    private PhoneStatus.Link link = PhoneStatus.Link.UNPAIRED;
    private boolean started;
    /** Bumped by every new attempt and every stop: callbacks of an older socket are ignored. */
    private int generation;
    private WebSocketClient socket;
    private boolean welcomed;
    private int attempt;
    private Clock.Timer retryTimer;
    private Clock.Timer welcomeTimer;
    private Clock.Timer healthTimer;
    private Clock.Timer watchdogTimer;
    private Clock.Timer probeTimer;
    private long lastPingAt;
    private String lastError;
    private long lastErrorAt;
    private long retryAt;
    private volatile PhoneStatus status;

    public PhoneClient(Config config, DeviceInfo info, Telephony telephony, AudioPort audio, DeviceStatus deviceStatus,
            Storage storage, Clock clock, TlsConfig tls, Log log) {
        this.config = config;
        this.info = info;
        this.telephony = telephony;
        this.audio = audio;
        this.deviceStatus = deviceStatus;
        this.storage = storage;
        this.clock = clock;
        this.tls = tls;
        this.log = log;
        this.outbox = new Outbox(storage, log);
        this.dtmf = new DtmfPlayer(telephony, clock, log);
        this.calls = new CallRegistry(storage, clock, telephony, new CallRegistry.Events() {
            @Override
            public void onEvent(JSONObject event, CallRegistry.TrackedCall call) {
                queueEvent(event);
            }
        }, log);
        this.dispatcher = new CommandDispatcher(telephony, calls, dtmf, log);
        this.pipe = new FramePipe(audio, clock);
        this.credentials = loadCredentials();
        this.link = credentials == null ? PhoneStatus.Link.UNPAIRED : PhoneStatus.Link.STOPPED;
        this.status = snapshot();
    }

    public void addObserver(Observer o) {
        observers.add(o);
        o.onStatus(status);
    }

    public void removeObserver(Observer o) {
        observers.remove(o);
    }

    public PhoneStatus status() {
        return status;
    }

    /** Reconciles the calls the platform has, then connects when paired. */
    public void start() {
        // The listener first: a call that appears while the restore is queued is then queued behind it.
        telephony.setListener(new Telephony.Listener() {
            @Override
            public void onCallChanged(final NativeCall call) {
                clock.execute(new Runnable() {
                    @Override
                    public void run() {
                        if (!started) return;
                        calls.onCallChanged(call);
                        callChanged();
                    }
                });
            }
        });
        audio.setListener(new AudioPort.Listener() {
            @Override
            public void onCapturedFrame(byte[] frame) {
                pipe.onCaptured(frame);
            }

            @Override
            public void onStateChanged() {
                clock.execute(new Runnable() {
                    @Override
                    public void run() {
                        updatePipe();
                        sendHealth();
                        publish();
                    }
                });
            }
        });
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (started) {
                    if (link == PhoneStatus.Link.STOPPED) connectNow();
                    return;
                }
                started = true;
                calls.restore(telephony.calls());
                connectNow();
            }
        });
    }

    /** Connects now: after a stop, or instead of waiting for the next retry. */
    public void reconnect() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (started && (link == PhoneStatus.Link.STOPPED || link == PhoneStatus.Link.WAITING_TO_RETRY)) connectNow();
            }
        });
    }

    /** Closes the socket and stays offline until {@link #start}; calls and outbox are kept. */
    public void stop() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                disconnect(WebSocketClient.NORMAL, "phone stops");
                if (credentials != null) link = PhoneStatus.Link.STOPPED;
                publish();
            }
        });
    }

    /**
     * Stops for good, as when the app's process ends: closes the socket (1001) and lets go of the
     * platform's calls and audio. Waits up to two seconds for that to happen on the clock's thread.
     */
    public void shutdown() {
        final CountDownLatch done = new CountDownLatch(1);
        clock.execute(new Runnable() {
            @Override
            public void run() {
                disconnect(WebSocketClient.GOING_AWAY, "app stops");
                telephony.setListener(null);
                audio.setListener(null);
                started = false;
                done.countDown();
            }
        });
        try {
            done.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Pairs with the gateway of {@code link} (blocking network call: never on the UI thread),
     * stores the credentials and connects. Events and calls of a previous pairing are dropped.
     */
    public Credentials pair(PairLink link, String name) throws PairingClient.Failed {
        final Credentials c = PairingClient.pair(link, name, info, tls, clock.now());
        useCredentials(c);
        return c;
    }

    /** Adopts credentials obtained elsewhere (the host's --token-file) and connects. */
    public void useCredentials(final Credentials c) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                disconnect(WebSocketClient.NORMAL, "paired again");
                if (credentials == null || !credentials.deviceId.equals(c.deviceId)) {
                    outbox.clear();
                    calls.clear();
                }
                try {
                    storage.write(CREDENTIALS, c.toJson());
                } catch (IOException e) {
                    log.log(Log.ERROR, "cannot store the credentials; they last until the app stops", e);
                }
                credentials = c;
                attempt = 0;
                lastError = null;
                log.log(Log.INFO, "paired deviceId=" + c.deviceId + " gateway=" + c.gateway, null);
                if (started) connectNow();
                else publish();
            }
        });
    }

    /** Forgets the gateway: closes the socket, deletes the credentials, the outbox and the calls. */
    public void unpair() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                forget(null);
            }
        });
    }

    /** The phone's network changed: report it, and retry or re-check the socket at once. */
    public void networkChanged() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (link == PhoneStatus.Link.WAITING_TO_RETRY) {
                    connectNow();
                } else if (welcomed) {
                    sendHealth();
                    probe();
                }
            }
        });
    }

    /** Sends a health report now (for example after the battery crossed a threshold). */
    public void reportHealth() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                sendHealth();
            }
        });
    }

    /** Drops the TCP connection without a close frame, as a lost network would (for tests and diagnostics). */
    public void dropSocket() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (socket != null) socket.abort();
            }
        });
    }

    /** Counters of the call's frames, for the status screen and the host's tests. */
    public FramePipe frames() {
        return pipe;
    }

    // ---- the socket -----------------------------------------------------------------------------

    private void connectNow() {
        if (retryTimer != null) retryTimer.cancel();
        retryTimer = null;
        if (credentials == null) {
            link = PhoneStatus.Link.UNPAIRED;
            publish();
            return;
        }
        if (link == PhoneStatus.Link.CONNECTING || link == PhoneStatus.Link.CONNECTED) return;
        link = PhoneStatus.Link.CONNECTING;
        attempt++;
        final int gen = ++generation;
        final Credentials c = credentials;
        publish();
        Thread connector = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    Map<String, String> headers = Collections.singletonMap("Authorization", "Bearer " + c.deviceToken);
                    final WebSocketClient ws = WebSocketClient.connect(c.gateway.ws("/v1/phone"), headers, tls, config.socket);
                    clock.execute(new Runnable() {
                        @Override
                        public void run() {
                            opened(gen, ws);
                        }
                    });
                } catch (final IOException e) {
                    failedToConnect(gen, e);
                } catch (final RuntimeException e) {
                    failedToConnect(gen, e);
                }
            }
        }, "vg-connect");
        connector.setDaemon(true);
        connector.start();
    }

    private void failedToConnect(final int gen, final Exception e) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (gen != generation) return;
                if (e instanceof HandshakeException && ((HandshakeException) e).status == 401) {
                    forget("The gateway no longer knows this phone (its token was revoked). Pair it again.");
                    return;
                }
                retryLater(describe(e));
            }
        });
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
        send(hello());
        welcomeTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (gen != generation || welcomed || socket == null) return;
                setError("The gateway did not answer hello within " + config.welcomeTimeoutMs / 1000 + " s.");
                socket.abort();
            }
        }, config.welcomeTimeoutMs);
    }

    private void onWelcome() {
        if (welcomed) return;
        cancelTimers();
        welcomed = true;
        link = PhoneStatus.Link.CONNECTED;
        attempt = 0;
        lastError = null;
        log.log(Log.INFO, "connected deviceId=" + credentials.deviceId, null);
        sendHealth();
        // The unacknowledged events go out again, in order (phone-protocol.md delivery guarantees).
        for (JSONObject event : outbox.pending()) send(event);
        scheduleHealth();
        lastPingAt = clock.elapsed();
        scheduleWatchdog();
        updatePipe();
        publish();
    }

    private void onClosed(int code, String reason, Exception error) {
        boolean wasWelcomed = welcomed;
        socket = null;
        welcomed = false;
        cancelTimers();
        updatePipe();
        if (code == Protocol.CLOSE_REVOKED) {
            forget("This phone was removed from the gateway. Pair it again.");
            return;
        }
        if (code == Protocol.CLOSE_REPLACED) {
            generation++;
            link = PhoneStatus.Link.STOPPED;
            setError("Another connection of this phone took over (close 4000). Connect again from the status screen.");
            publish();
            return;
        }
        String why = error != null ? describe(error) : "The gateway closed the socket (" + code + (reason.isEmpty() ? "" : " " + reason) + ").";
        log.log(Log.WARN, (wasWelcomed ? "socket lost: " : "socket closed before welcome: ") + why, null);
        retryLater(why);
    }

    private void retryLater(String why) {
        setError(why);
        link = PhoneStatus.Link.WAITING_TO_RETRY;
        long delay = Backoff.delayMs(Math.max(1, attempt), config.backoffInitialMs, config.backoffMaxMs, random);
        retryAt = clock.now() + delay;
        retryTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                retryTimer = null;
                if (link == PhoneStatus.Link.WAITING_TO_RETRY) connectNow();
            }
        }, delay);
        publish();
    }

    private void disconnect(int code, String reason) {
        generation++;
        if (retryTimer != null) retryTimer.cancel();
        retryTimer = null;
        cancelTimers();
        if (socket != null) socket.close(code, reason);
        socket = null;
        welcomed = false;
        updatePipe();
    }

    /** Forgets the pairing; {@code why} (null when asked by the person) is shown on the status screen. */
    private void forget(String why) {
        disconnect(WebSocketClient.NORMAL, "unpaired");
        try {
            storage.delete(CREDENTIALS);
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot delete the credentials", e);
        }
        credentials = null;
        outbox.clear();
        calls.clear();
        link = PhoneStatus.Link.UNPAIRED;
        if (why != null) setError(why);
        else lastError = null;
        log.log(Log.INFO, why != null ? "unpaired: " + why : "unpaired", null);
        publish();
    }

    private void cancelTimers() {
        if (welcomeTimer != null) welcomeTimer.cancel();
        if (healthTimer != null) healthTimer.cancel();
        if (watchdogTimer != null) watchdogTimer.cancel();
        if (probeTimer != null) probeTimer.cancel();
        welcomeTimer = healthTimer = watchdogTimer = probeTimer = null;
    }

    private void scheduleHealth() {
        healthTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (!welcomed) return;
                sendHealth();
                scheduleHealth();
            }
        }, config.healthIntervalMs);
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

    // ---- messages -----------------------------------------------------------------------------

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
                    if (gen == generation && welcomed) pipe.onGatewayFrame(data);
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
                    if (gen == generation) onClosed(code, reason, error);
                }
            });
        }
    }

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

    private void received(String text) {
        JSONObject msg;
        try {
            msg = new JSONObject(text);
        } catch (JSONException e) {
            log.log(Log.WARN, "the gateway sent a message that is not JSON", null);
            return;
        }
        for (Observer o : observers) o.onMessage(false, msg);
        String type = msg.optString("type", "");
        if (type.equals("welcome")) {
            onWelcome();
        } else if (type.equals("command")) {
            onCommand(msg);
        } else if (type.equals("event.ack")) {
            onEventAck(msg);
        } else if (type.equals("error")) {
            String problem = "The gateway refused a message: " + msg.optString("code", "?") + " " + msg.optString("message", "");
            log.log(Log.WARN, problem, null);
            setError(problem);
            publish();
        } else {
            // A later protocol version may add messages; this one ignores them.
            log.log(Log.DEBUG, "ignoring gateway message of type " + type, null);
        }
    }

    private void onCommand(JSONObject msg) {
        String commandId = msg.optString("commandId", "");
        if (commandId.isEmpty()) {
            log.log(Log.WARN, "a command without commandId cannot be acknowledged; ignored", null);
            return;
        }
        JSONObject payload = msg.optJSONObject("payload");
        Command cmd = new Command(commandId, msg.optString("callId", ""), msg.optString("action", ""), payload);
        CommandDispatcher.Ack ack = dispatcher.handle(cmd);
        log.log(ack.ok ? Log.INFO : Log.WARN, "command " + cmd.action + " callId=" + cmd.callId + (ack.ok ? " ok" : " refused " + ack.code + ": " + ack.message), null);
        JSONObject reply = new JSONObject();
        try {
            reply.put("type", "ack").put("commandId", commandId).put("ok", ack.ok);
            if (!ack.ok) reply.put("error", new JSONObject().put("code", ack.code).put("message", ack.message));
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        send(reply);
        if (!ack.ok) {
            setError("Refused " + cmd.action + ": " + ack.code + " — " + ack.message);
            publish();
        }
    }

    private void onEventAck(JSONObject msg) {
        JSONObject event = outbox.ack(msg.optString("eventId", ""));
        if (event == null) return; // an ack of an event sent twice
        String callId = msg.isNull("callId") ? null : msg.optString("callId", null);
        if (callId != null && !callId.isEmpty()) {
            String nativeCallId = event.optString("nativeCallId");
            calls.onCallIdKnown(nativeCallId, callId);
            outbox.assignCallId(nativeCallId, callId);
        }
        publish();
    }

    private void queueEvent(JSONObject event) {
        outbox.add(event);
        if (welcomed) send(event);
    }

    private void callChanged() {
        CallRegistry.TrackedCall current = calls.current();
        if (current == null) dtmf.stop();
        updatePipe();
        publish();
    }

    private void updatePipe() {
        CallRegistry.TrackedCall current = calls.current();
        boolean active = current != null && "active".equals(CallEvents.specState(current.state));
        pipe.update(welcomed ? socket : null, active);
    }

    private JSONObject hello() {
        JSONObject hello = new JSONObject();
        try {
            hello.put("type", "hello").put("appVersion", info.appVersion);
            CallRegistry.TrackedCall current = calls.current();
            if (current != null) {
                JSONObject call = new JSONObject().put("nativeCallId", current.nativeCallId).put("state", CallEvents.specState(current.state));
                if (current.callId != null) call.put("callId", current.callId);
                hello.put("call", call);
            }
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        return hello;
    }

    private void sendHealth() {
        if (!welcomed) return;
        JSONObject msg = new JSONObject();
        try {
            msg.put("type", "health").put("health", HealthReport.build(deviceStatus, info, audio.state(), audio.capabilities(), clock.now()));
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        send(msg);
    }

    private void send(JSONObject msg) {
        WebSocketClient ws = socket;
        if (ws == null) return;
        ws.sendText(msg.toString());
        for (Observer o : observers) o.onMessage(true, msg);
    }

    // ---- status -------------------------------------------------------------------------------

    private void setError(String message) {
        lastError = message;
        lastErrorAt = clock.now();
    }

    private void publish() {
        status = snapshot();
        for (Observer o : observers) o.onStatus(status);
    }

    private PhoneStatus snapshot() {
        CallRegistry.TrackedCall c = calls.current();
        PhoneStatus.CallSummary call = c == null ? null
                : new PhoneStatus.CallSummary(c.nativeCallId, c.callId, c.direction(), c.number, CallEvents.specState(c.state));
        return new PhoneStatus(link, credentials == null ? null : credentials.gateway.base(),
                credentials == null ? null : credentials.deviceId, lastError, lastErrorAt, retryAt, call,
                audio.state(), audio.canInject(), pipe.isStreaming(), outbox.size());
    }

    private Credentials loadCredentials() {
        try {
            String text = storage.read(CREDENTIALS);
            if (text == null) return null;
            Credentials c = Credentials.fromJson(text);
            if (c == null) log.log(Log.ERROR, "the stored credentials are damaged; pair again", null);
            return c;
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot read the credentials", e);
            return null;
        }
    }

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
}
