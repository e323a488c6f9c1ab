package dev.voicegateway.app.adb;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.os.Build;
import android.os.Handler;
import android.os.Looper;
import android.os.Process;
import dev.voicegateway.app.R;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.adb.AdbConnection;
import dev.voicegateway.core.adb.AdbDiscovery;
import dev.voicegateway.core.adb.AdbKey;
import dev.voicegateway.core.adb.AdbPairingClient;
import dev.voicegateway.core.adb.CodeEntry;
import dev.voicegateway.core.adb.SelfStart;
import dev.voicegateway.core.adb.SelfStartRun;
import dev.voicegateway.core.adb.SwitchWatch;
import dev.voicegateway.core.helper.HelperAudioPort;
import dev.voicegateway.core.helper.StartCommand;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Starts the audio helper without a computer (issue 24): thin glue between the platform (NsdManager,
 * the notification, Settings, the platform's TLS) and the pure decisions in core/adb ({@link SelfStart},
 * {@link CodeEntry}, {@link SelfStartRun}). Every step runs on one worker thread. The ADB key lives in
 * the app's private files ({@code files/adb/}, 0600, AdbKey.save), its bytes never logged; the pairing
 * code is neither logged nor stored.
 */
public final class SelfStarter {
    private static final int TIMEOUT_MS = 15000;
    private static final long POLL_MS = 250;

    private final Context context;
    private final HelperAudioPort audio;
    private final Log log;
    private final WirelessDebugging settings;
    private final File keyDir;
    private final SecureRandom random = new SecureRandom();
    private final Handler main = new Handler(Looper.getMainLooper());
    private final Runnable changed;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(new ThreadFactory() {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "vg-selfstart");
            t.setDaemon(true);
            return t;
        }
    });

    // Worker thread only.
    private CodeEntry entry;
    private NsdDiscovery pairingDiscovery;
    // Read by the status screen.
    private volatile String lastMessage;
    /** Keeps the switch's observer from taking the app's own writes for the person's. */
    private final SwitchWatch watch = new SwitchWatch();

    public SelfStarter(Context context, HelperAudioPort audio, Log log, Runnable changed) {
        this.context = context.getApplicationContext();
        this.audio = audio;
        this.log = log;
        this.changed = changed;
        this.settings = new WirelessDebugging(this.context);
        this.keyDir = new File(this.context.getFilesDir(), "adb");
        audio.setSelfStartPaired(paired());
    }

    /** Android 11 and older: the computer path only (no public TLS keying-material exporter before 12). */
    public static boolean supported() {
        return Build.VERSION.SDK_INT >= 31;
    }

    public boolean paired() {
        return new File(keyDir, "paired").isFile();
    }

    public boolean granted() {
        return settings.granted();
    }

    /** The grant is used (Android 13+, SelfStart.mayTurnOnItself). */
    public boolean grantUsed() {
        return SelfStart.mayTurnOnItself(Build.VERSION.SDK_INT, settings.granted());
    }

    /** The last outcome or problem in plain words, or null. */
    public String lastMessage() {
        return lastMessage;
    }

    /** The pairing's state in words for the status screen, or null when none runs. */
    public String pairingPrompt() {
        CodeEntry e = entry;
        return e == null ? null : e.prompt();
    }

    /** The status screen's one line for the grant. */
    public String grantCommand() {
        return "adb shell pm grant " + context.getPackageName() + " " + WirelessDebugging.PERMISSION;
    }

    /** Watches the Wireless debugging switch: turned on by the person after our notification, the helper starts. */
    public void watchSwitch() {
        if (!supported()) return;
        settings.watch(main, new Runnable() {
            @Override
            public void run() {
                if (watch.shouldStart(System.currentTimeMillis(), paired(), running(), settings.on())) startHelper();
            }
        });
    }

    // ---- pairing ---------------------------------------------------------------------------------

    /** "Pair with Wireless debugging" on the status screen: the notification, discovery, then Developer options. */
    public void beginPairing() {
        worker.execute(new Runnable() {
            @Override
            public void run() {
                if (!supported()) {
                    report(context.getString(R.string.self_start_needs_12));
                    return;
                }
                entry = new CodeEntry(System.currentTimeMillis(), CodeEntry.DEFAULT_TIMEOUT_MS);
                stopPairingDiscovery();
                pairingDiscovery = new NsdDiscovery(context, AdbDiscovery.PAIRING_TYPE, log, new NsdDiscovery.Listener() {
                    @Override
                    public void onPort(final int port) {
                        worker.execute(new Runnable() {
                            @Override
                            public void run() {
                                CodeEntry e = entry;
                                if (e == null) return;
                                e.pairingPort(port, System.currentTimeMillis());
                                showEntry(e);
                            }
                        });
                    }
                });
                pairingDiscovery.start();
                showEntry(entry);
                scheduleExpiry();
            }
        });
        if (supported()) context.startActivity(PairingNotification.developerOptionsIntent());
    }

    /**
     * The code from the notification (port from its intent) or from the status screen's field (port -1:
     * the one discovery knows). Null result: finished at once.
     */
    public void codeTyped(final CharSequence typed, final int port, final BroadcastReceiver.PendingResult result) {
        worker.execute(new Runnable() {
            @Override
            public void run() {
                try {
                    pair(typed, port);
                } finally {
                    if (result != null) result.finish();
                }
            }
        });
    }

    private void pair(CharSequence typed, int port) {
        long now = System.currentTimeMillis();
        if (entry == null || entry.finished()) entry = new CodeEntry(now, CodeEntry.DEFAULT_TIMEOUT_MS);
        CodeEntry e = entry;
        if (port > 0 && e.port() < 0) e.pairingPort(port, now);
        String code = e.typed(typed, now);
        showEntry(e);
        if (code == null) return;
        try {
            AdbKey key = AdbKey.loadOrCreate(keyDir, random);
            new AdbPairingClient(new PlatformAdbTls(random), key, keyName(), random, TIMEOUT_MS)
                    .pair("127.0.0.1", e.port(), code);
            markPaired(true);
            e.paired();
            log.log(Log.INFO, "paired with this phone's Wireless debugging (key " + key.fingerprint() + ")", null);
        } catch (IOException | GeneralSecurityException ex) {
            e.failed(ex.getMessage() == null ? ex.toString() : ex.getMessage());
            log.log(Log.WARN, "pairing with Wireless debugging failed: " + ex.getMessage(), null);
        }
        showEntry(e);
        if (e.state() == CodeEntry.State.PAIRED) {
            stopPairingDiscovery();
            // Queued, not run here: the reply's broadcast is finished first.
            startHelper();
        }
    }

    private void showEntry(CodeEntry e) {
        boolean reply = e.state() == CodeEntry.State.READY_FOR_CODE || e.state() == CodeEntry.State.LOOKING_FOR_DIALOG;
        PairingNotification.code(context, e.prompt(), e.port(), reply && e.port() > 0);
        report(e.prompt());
    }

    private void scheduleExpiry() {
        main.postDelayed(new Runnable() {
            @Override
            public void run() {
                worker.execute(new Runnable() {
                    @Override
                    public void run() {
                        CodeEntry e = entry;
                        if (e != null && e.expire(System.currentTimeMillis())) {
                            stopPairingDiscovery();
                            showEntry(e);
                        }
                    }
                });
            }
        }, CodeEntry.DEFAULT_TIMEOUT_MS);
    }

    private void stopPairingDiscovery() {
        if (pairingDiscovery != null) pairingDiscovery.stop();
        pairingDiscovery = null;
    }

    // ---- starting the helper ---------------------------------------------------------------------

    /** After a boot, and from the status screen: decide (SelfStart.next) and act. */
    public void startHelper() {
        worker.execute(new Runnable() {
            @Override
            public void run() {
                startNow();
            }
        });
    }

    private void startNow() {
        boolean turnedOnBefore = new File(keyDir, "turned-on").isFile();
        SelfStart.Facts facts = new SelfStart.Facts(Build.VERSION.SDK_INT, paired(), false, settings.granted(), settings.onWifi(),
                settings.on(), turnedOnBefore, running());
        SelfStart.Action action = SelfStart.next(facts);
        switch (action) {
            case NOTHING:
                return;
            case TURN_OFF_WIRELESS_DEBUGGING:
                // Not with USB debugging off: adbd would stop and take the running helper with it.
                if (settings.usbDebuggingOn()) {
                    watch.ownWrite(System.currentTimeMillis());
                    settings.set(false);
                }
                remember(false);
                return;
            case COMPUTER_ONLY:
            case ASK_TO_PAIR:
                report(SelfStart.advice(action));
                return;
            case JOIN_WIFI:
                notifyProblem(SelfStartRun.message(SelfStartRun.Outcome.NOT_ON_WIFI));
                return;
            case NOTIFY_TURN_ON_WIRELESS_DEBUGGING:
                String text = SelfStartRun.message(SelfStartRun.Outcome.WIRELESS_DEBUGGING_OFF);
                report(text);
                PairingNotification.turnOn(context, text);
                return;
            default:
                break;
        }
        SelfStartRun.Result result;
        watch.runStarted();
        try {
            result = new SelfStartRun(platform, new SelfStartRun.Timeouts())
                    .run(StartCommand.shell(context.getPackageName(), Process.myUid()), grantUsed());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            watch.runEnded(System.currentTimeMillis());
        }
        if (turnedOnBefore && new File(keyDir, "turned-on").isFile() && running()) {
            // A run cut short earlier left it on: put it back now that the helper runs, unless that
            // would stop adbd and the helper with it (USB debugging off, SelfStartRun.Platform.usbDebuggingOn).
            if (settings.usbDebuggingOn()) {
                watch.ownWrite(System.currentTimeMillis());
                settings.set(false);
            }
            remember(false);
        }
        log.log(result.outcome == SelfStartRun.Outcome.STARTED ? Log.INFO : Log.WARN, "self-start: " + result.outcome, null);
        switch (result.outcome) {
            case STARTED:
                PairingNotification.cancel(context);
                report(result.message);
                break;
            case PAIRING_FORGOTTEN:
                markPaired(false);
                notifyProblem(result.message);
                break;
            case WIRELESS_DEBUGGING_OFF:
                report(result.message);
                PairingNotification.turnOn(context, result.message);
                break;
            default:
                notifyProblem(result.message);
        }
    }

    private final SelfStartRun.Platform platform = new SelfStartRun.Platform() {
        @Override
        public boolean onWifi() {
            return settings.onWifi();
        }

        @Override
        public boolean wirelessDebuggingOn() {
            return settings.on();
        }

        @Override
        public boolean setWirelessDebugging(boolean on) {
            watch.ownWrite(System.currentTimeMillis());
            return settings.set(on);
        }

        @Override
        public boolean usbDebuggingOn() {
            return settings.usbDebuggingOn();
        }

        @Override
        public void rememberTurnedOn(boolean on) {
            remember(on);
        }

        @Override
        public int connectPort(long timeoutMs, final int stalePort) throws InterruptedException {
            final Object lock = new Object();
            final int[] port = {-1};
            NsdDiscovery d = new NsdDiscovery(context, AdbDiscovery.CONNECT_TYPE, log, new NsdDiscovery.Listener() {
                @Override
                public void onPort(int p) {
                    synchronized (lock) {
                        if (p > 0 && p != stalePort) {
                            port[0] = p;
                            lock.notifyAll();
                        }
                    }
                }
            });
            d.start();
            try {
                long deadline = System.currentTimeMillis() + timeoutMs;
                synchronized (lock) {
                    while (port[0] < 0) {
                        long left = deadline - System.currentTimeMillis();
                        if (left <= 0) break;
                        lock.wait(left);
                    }
                    return port[0];
                }
            } finally {
                d.stop();
            }
        }

        @Override
        public String shell(int port, String command) throws IOException {
            AdbKey key;
            try {
                key = AdbKey.load(keyDir);
            } catch (GeneralSecurityException e) {
                throw new IOException("the stored ADB key cannot be read: " + e.getMessage(), e);
            }
            if (key == null) throw new AdbConnection.KeyRefused("no ADB key stored: pair again", null);
            return AdbConnection.shell(new PlatformAdbTls(random), key, "127.0.0.1", port, command, TIMEOUT_MS).output;
        }

        @Override
        public boolean awaitHelper(long timeoutMs) throws InterruptedException {
            audio.retryNow();
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                if (running()) return true;
                // The helper's announcement reaches HelperAudioPort through HelperProvider; its state is read, not awaited.
                Thread.sleep(POLL_MS);
            }
            return running();
        }
    };

    private boolean running() {
        return Protocol.AUDIO_RUNNING.equals(audio.state());
    }

    private void markPaired(boolean paired) {
        File marker = new File(keyDir, "paired");
        if (paired) {
            try {
                new FileOutputStream(marker).close();
            } catch (IOException e) {
                log.log(Log.WARN, "could not note the pairing: " + e.getMessage(), null);
            }
        } else if (marker.exists() && !marker.delete()) {
            log.log(Log.WARN, "could not forget the pairing note", null);
        }
        audio.setSelfStartPaired(paired);
    }

    private void remember(boolean turnedOn) {
        File marker = new File(keyDir, "turned-on");
        try {
            if (turnedOn) {
                if (!keyDir.isDirectory() && !keyDir.mkdirs()) throw new IOException("cannot make " + keyDir);
                new FileOutputStream(marker).close();
            } else if (marker.exists() && !marker.delete()) {
                throw new IOException("cannot delete " + marker);
            }
        } catch (IOException e) {
            log.log(Log.WARN, "could not note the Wireless debugging switch: " + e.getMessage(), null);
        }
    }

    private void notifyProblem(String text) {
        report(text);
        PairingNotification.problem(context, text);
    }

    private void report(String text) {
        lastMessage = text;
        changed.run();
    }

    private static String keyName() {
        String model = Build.MODEL == null ? "phone" : Build.MODEL.replaceAll("[^A-Za-z0-9._-]", "_");
        return "voicegateway@" + model;
    }
}
