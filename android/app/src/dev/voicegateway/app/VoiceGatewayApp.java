package dev.voicegateway.app;

import android.app.Application;
import android.content.Context;
import android.os.Handler;
import android.os.Looper;
import dev.voicegateway.app.compat.Notifications;
import dev.voicegateway.app.helper.HelperPorts;
import dev.voicegateway.app.platform.AndroidDeviceInfo;
import dev.voicegateway.app.platform.AndroidDeviceStatus;
import dev.voicegateway.app.platform.AndroidLog;
import dev.voicegateway.app.platform.AndroidProbe;
import dev.voicegateway.app.service.GatewayService;
import dev.voicegateway.app.service.NetworkWatcher;
import dev.voicegateway.app.telecom.TelecomTelephony;
import dev.voicegateway.core.FileStorage;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.PhoneClient;
import dev.voicegateway.core.PhoneStatus;
import dev.voicegateway.core.SelfTest;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.TlsConfig;
import dev.voicegateway.core.helper.HelperAudioPort;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.json.JSONObject;

/**
 * Builds the one {@link PhoneClient} of the process from the Android adapters and starts it once
 * paired. Also the place where the screens hear of changes (on the main thread) and where a
 * failure that is not the core's (a refused service start, a Telecom exception) is kept for the
 * status screen.
 */
public final class VoiceGatewayApp extends Application {
    public static final String CHANNEL_CONNECTION = "connection";
    public static final String CHANNEL_INCOMING = "incoming";
    public static final String CHANNEL_CALLS = "calls";

    /** Hears that something on the status or call screens may have changed; main thread. */
    public interface Listener {
        void onChanged();
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<Listener>();
    private final AtomicBoolean dispatchPending = new AtomicBoolean();
    private Handler main;
    private Log log;
    private TelecomTelephony telephony;
    private HelperAudioPort audio;
    private dev.voicegateway.app.adb.SelfStarter selfStarter;
    private PhoneClient client;
    private SelfTest selfTest;
    private dev.voicegateway.app.service.LanBinder lan;
    private NetworkWatcher networkWatcher;
    private volatile String problem;
    private volatile String problemSource;
    private volatile long problemAt;
    private volatile long dismissedAt;

    public static VoiceGatewayApp of(Context context) {
        return (VoiceGatewayApp) context.getApplicationContext();
    }

    @Override
    public void onCreate() {
        super.onCreate();
        main = new Handler(Looper.getMainLooper());
        log = new AndroidLog();
        telephony = new TelecomTelephony(this, log);
        audio = HelperPorts.create(this, log);
        selfStarter = new dev.voicegateway.app.adb.SelfStarter(this, audio, log, new Runnable() {
            @Override
            public void run() {
                changed();
            }
        });
        selfStarter.watchSwitch();
        lan = new dev.voicegateway.app.service.LanBinder(this, log);
        lan.start();
        PhoneClient.Config config = new PhoneClient.Config();
        config.socket.binder = lan;
        ThreadClock core = new ThreadClock("vg-core", log);
        client = new PhoneClient(config, AndroidDeviceInfo.read(this), telephony, audio,
                new AndroidDeviceStatus(this), new FileStorage(getFilesDir()), core, TlsConfig.platform(), log);
        client.setWakefulness(new dev.voicegateway.app.service.KeepAwake(this));
        // The self-test goes to the gateway after each start of the audio helper, and from the status screen.
        selfTest = SelfTest.attach(new AndroidProbe(this), client, audio, core, log);
        client.addObserver(new PhoneClient.Observer() {
            @Override
            public void onStatus(PhoneStatus status) {
                changed();
            }

            @Override
            public void onMessage(boolean outgoing, JSONObject message) {
            }
        });
        try {
            Notifications.channel(this, CHANNEL_CONNECTION, getString(R.string.channel_connection), getString(R.string.channel_connection_about), false);
            Notifications.channel(this, CHANNEL_INCOMING, getString(R.string.channel_incoming), getString(R.string.channel_incoming_about), true);
            Notifications.channel(this, CHANNEL_CALLS, getString(R.string.channel_calls), getString(R.string.channel_calls_about), false);
        } catch (RuntimeException e) {
            reportProblem("Notification channels could not be set up: " + e, e);
        }
        if (isPaired()) startGateway();
    }

    /** The LAN binding of the phone socket (which network the socket uses, for the status screen). */
    public dev.voicegateway.app.service.LanBinder lan() {
        return lan;
    }

    public PhoneClient client() {
        return client;
    }

    /** The self-test (docs/android.md, "The self-test"): the status screen's "Run the self-test". */
    public SelfTest selfTest() {
        return selfTest;
    }

    public TelecomTelephony telephony() {
        return telephony;
    }

    /** The bridge to the call-audio helper (its state, capabilities and start command). */
    public HelperAudioPort audio() {
        return audio;
    }

    /** Starting the audio helper through the phone's own Wireless debugging (issue 24). */
    public dev.voicegateway.app.adb.SelfStarter selfStarter() {
        return selfStarter;
    }

    public boolean isPaired() {
        return client.status().link != PhoneStatus.Link.UNPAIRED;
    }

    /**
     * Connects (the core's start is idempotent) and keeps the process alive with the foreground
     * service. Main thread: the core installs its Telecom listener here, and Telecom's callbacks
     * come on the main thread, so no call change can slip between its snapshot and its listener.
     */
    public void startGateway() {
        client.start();
        audio.start();
        if (networkWatcher == null) {
            networkWatcher = new NetworkWatcher(this, client, log);
            networkWatcher.start();
        }
        GatewayService.start(this);
    }

    /** "Connect now" on the status screen: start when stopped, or skip the rest of the backoff. */
    public void connectNow() {
        startGateway();
        client.reconnect();
    }

    /** Runs on the main thread (now, if already there). */
    public void onMain(Runnable task) {
        if (Looper.myLooper() == Looper.getMainLooper()) task.run();
        else main.post(task);
    }

    // ---- problems for the status screen -------------------------------------------------------

    /** Keeps a failure for the status screen (the newest one wins) and logs it. */
    public void reportProblem(String message, Throwable error) {
        reportProblem(null, message, error);
    }

    /** A failure that {@link #problemSolved} with the same {@code source} takes back once it no longer holds. */
    public void reportProblem(String source, String message, Throwable error) {
        log.log(Log.ERROR, message, error);
        problem = message;
        problemSource = source;
        problemAt = System.currentTimeMillis();
        changed();
    }

    /** The failure last reported by {@code source} is over (the service runs after all, say). */
    public void problemSolved(String source) {
        if (problem == null || source == null || !source.equals(problemSource)) return;
        problem = null;
        problemSource = null;
        changed();
    }

    /** The newest problem, the core's or the app's, unless the person dismissed it; null when none. */
    public Problem problem() {
        PhoneStatus s = client.status();
        String text = problem;
        long at = problemAt;
        if (s.lastError != null && (text == null || s.lastErrorAt >= at)) {
            text = s.lastError;
            at = s.lastErrorAt;
        }
        if (text == null || at <= dismissedAt) return null;
        return new Problem(text, at);
    }

    public void dismissProblem() {
        dismissedAt = System.currentTimeMillis();
        changed();
    }

    /** A failure as the status screen shows it. */
    public static final class Problem {
        public final String message;
        public final long at;

        Problem(String message, long at) {
            this.message = message;
            this.at = at;
        }
    }

    // ---- change notifications for the screens -------------------------------------------------

    public void addListener(Listener l) {
        listeners.add(l);
    }

    public void removeListener(Listener l) {
        listeners.remove(l);
    }

    /** Something changed: every listener hears of it once, soon, on the main thread. */
    public void changed() {
        if (!dispatchPending.compareAndSet(false, true)) return;
        main.post(new Runnable() {
            @Override
            public void run() {
                dispatchPending.set(false);
                for (Listener l : listeners) {
                    try {
                        l.onChanged();
                    } catch (RuntimeException e) {
                        log.log(Log.ERROR, "a screen failed to update", e);
                    }
                }
            }
        });
    }
}
