package dev.voicegateway.core;

import dev.voicegateway.core.audio.AudioPort;
import dev.voicegateway.core.audio.FramePipe;
import dev.voicegateway.core.ws.WebSocketClient;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The phone's side of phone-protocol.md: pairing, health reports, commands and their acks, the
 * event outbox and the call's frames, over the one phone socket that {@link GatewayLink} keeps.
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
        /** The gateway's frames buffered before play-out starts (40 ms), and at most (160 ms; the oldest is dropped past it). */
        public int jitterTargetFrames = 2;
        public int jitterMaxFrames = 8;
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
    private final Outbox outbox;
    private final CallRegistry calls;
    private final DtmfPlayer dtmf;
    private final CommandDispatcher dispatcher;
    private final FramePipe pipe;
    private final GatewayLink link;
    private final List<Observer> observers = new CopyOnWriteArrayList<Observer>();

    // State, touched only on the clock's thread.
    private Credentials credentials;
    private boolean started;
    private Clock.Timer healthTimer;
    /** The latest self-test report not yet sent (only the latest matters: not in the outbox). */
    private JSONObject diagnostics;
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
        this.pipe = new FramePipe(audio, clock, config.jitterTargetFrames, config.jitterMaxFrames);
        this.link = GatewayLink.forGateway(config, clock, tls, log, new LinkEvents());
        this.credentials = loadCredentials();
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
                    if (link.state() == PhoneStatus.Link.STOPPED) connect();
                    return;
                }
                started = true;
                calls.restore(telephony.calls());
                connect();
            }
        });
    }

    /** Connects now: after a stop, or instead of waiting for the next retry. */
    public void reconnect() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (!started) return;
                if (link.state() == PhoneStatus.Link.STOPPED) connect();
                else link.retryNow();
            }
        });
    }

    /** Closes the socket and stays offline until {@link #start}; calls and outbox are kept. */
    public void stop() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                link.stop(WebSocketClient.NORMAL, "phone stops");
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
                link.stop(WebSocketClient.GOING_AWAY, "app stops");
                calls.close();
                dtmf.stop();
                if (healthTimer != null) healthTimer.cancel();
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
                link.stop(WebSocketClient.NORMAL, "paired again");
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
                link.clearError();
                log.log(Log.INFO, "paired deviceId=" + c.deviceId + " gateway=" + c.gateway, null);
                if (started) connect();
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
                sendHealth();
                link.networkChanged();
            }
        });
    }

    /** How the link keeps its retries going while the phone sleeps (the app's wake lock and alarm). */
    public void setWakefulness(final Wakefulness wake) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                link.setWakefulness(wake);
            }
        });
    }

    /** The alarm set through {@link Wakefulness#alarmIn} went off: retry now if still waiting. */
    public void alarm() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                link.alarm();
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

    /**
     * Sends a self-test report ({@link SelfTest}; phone protocol extension 1.3) now when the socket
     * is welcomed, else once it is; a newer report replaces one still waiting.
     */
    public void sendDiagnostics(final JSONObject report) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                diagnostics = report;
                flushDiagnostics();
            }
        });
    }

    /** Drops the TCP connection without a close frame, as a lost network would (for tests and diagnostics). */
    public void dropSocket() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                link.dropSocket();
            }
        });
    }

    /** Counters of the call's frames, for the status screen and the host's tests. */
    public FramePipe frames() {
        return pipe;
    }

    // ---- the socket's life, as the protocol's content sees it ----------------------------------

    private void connect() {
        if (credentials == null) {
            publish();
            return;
        }
        link.connect(credentials);
    }

    private final class LinkEvents implements GatewayLink.Events {
        @Override
        public JSONObject hello() {
            JSONObject hello = PhoneClient.this.hello();
            for (Observer o : observers) o.onMessage(true, hello);
            return hello;
        }

        @Override
        public void onWelcome() {
            log.log(Log.INFO, "connected deviceId=" + credentials.deviceId, null);
            sendHealth();
            // The unacknowledged events go out again, in order (phone-protocol.md delivery guarantees).
            for (JSONObject event : outbox.pending()) send(event);
            flushDiagnostics();
            scheduleHealth();
            updatePipe();
        }

        @Override
        public void onMessage(JSONObject message) {
            received(message);
        }

        @Override
        public void onFrame(byte[] frame) {
            pipe.onGatewayFrame(frame);
        }

        @Override
        public void onDown() {
            if (healthTimer != null) healthTimer.cancel();
            healthTimer = null;
            updatePipe();
        }

        @Override
        public void onRevoked(String why) {
            forget(why);
        }

        @Override
        public void onChanged() {
            publish();
        }
    }

    /** Forgets the pairing; {@code why} (null when asked by the person) is shown on the status screen. */
    private void forget(String why) {
        link.stop(WebSocketClient.NORMAL, "unpaired");
        try {
            storage.delete(CREDENTIALS);
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot delete the credentials", e);
        }
        credentials = null;
        outbox.clear();
        calls.clear();
        diagnostics = null;
        if (why != null) link.setError(why);
        else link.clearError();
        log.log(Log.INFO, why != null ? "unpaired: " + why : "unpaired", null);
        publish();
    }

    private void scheduleHealth() {
        healthTimer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (!link.isWelcomed()) return;
                sendHealth();
                scheduleHealth();
            }
        }, config.healthIntervalMs);
    }

    private void received(JSONObject msg) {
        for (Observer o : observers) o.onMessage(false, msg);
        String type = msg.optString("type", "");
        if (type.equals("welcome")) {
            // GatewayLink has taken the socket as welcomed.
        } else if (type.equals("command")) {
            onCommand(msg);
        } else if (type.equals("event.ack")) {
            onEventAck(msg);
        } else if (type.equals("error")) {
            String problem = "The gateway refused a message: " + msg.optString("code", "?") + " " + msg.optString("message", "");
            log.log(Log.WARN, problem, null);
            link.setError(problem);
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
            link.setError("Refused " + cmd.action + ": " + ack.code + " — " + ack.message);
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
        if (link.isWelcomed()) send(event);
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
        pipe.update(link.welcomedSocket(), active);
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
        if (!link.isWelcomed()) return;
        JSONObject msg = new JSONObject();
        try {
            msg.put("type", "health").put("health", HealthReport.build(deviceStatus, info, audio.state(), audio.capabilities(),
                    telephony instanceof SimChoice ? ((SimChoice) telephony).sims() : null, clock.now()));
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        send(msg);
    }

    private void flushDiagnostics() {
        if (diagnostics == null || !link.isWelcomed()) return;
        JSONObject msg = new JSONObject();
        try {
            msg.put("type", "diagnostics").put("version", SelfTest.VERSION).put("report", diagnostics);
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        diagnostics = null;
        send(msg);
    }

    private void send(JSONObject msg) {
        link.send(msg);
        for (Observer o : observers) o.onMessage(true, msg);
    }

    // ---- status -------------------------------------------------------------------------------

    private void publish() {
        status = snapshot();
        for (Observer o : observers) o.onStatus(status);
    }

    private PhoneStatus snapshot() {
        CallRegistry.TrackedCall c = calls.current();
        PhoneStatus.CallSummary call = c == null ? null
                : new PhoneStatus.CallSummary(c.nativeCallId, c.callId, c.direction(), c.number, CallEvents.specState(c.state));
        PhoneStatus.Link state = credentials == null ? PhoneStatus.Link.UNPAIRED : link.state();
        return new PhoneStatus(state, credentials == null ? null : credentials.gateway.base(),
                credentials == null ? null : credentials.deviceId, link.lastError(), link.lastErrorAt(), link.retryAt(), call,
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
}
