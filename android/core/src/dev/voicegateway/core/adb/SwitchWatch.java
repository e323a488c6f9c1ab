package dev.voicegateway.core.adb;

/**
 * Whether a change of the Wireless debugging switch (the app's ContentObserver on "adb_wifi_enabled")
 * should start the helper: yes when the person turned it on (after the "Call audio is off"
 * notification), paired and without a helper; never for the app's own writes. A start run turns the
 * switch on and off itself, and the observer hears those writes later, on another thread: were they
 * taken for the person's, a run that fails (say, on a Wi-Fi not allowed) would start the next one, for
 * ever. So changes during a run, and within {@link #OWN_WRITE_MS} of the app's own last write, are
 * ignored. Thread-safe; times are the caller's clock in milliseconds.
 */
public final class SwitchWatch {
    public static final long OWN_WRITE_MS = 5000;
    private boolean underWay;
    private boolean wrote;
    private long ownWriteAt;

    public synchronized void runStarted() {
        underWay = true;
    }

    public synchronized void runEnded(long now) {
        underWay = false;
        ownWrite(now);
    }

    /** The app wrote the switch itself. */
    public synchronized void ownWrite(long now) {
        wrote = true;
        ownWriteAt = now;
    }

    public synchronized boolean shouldStart(long now, boolean paired, boolean helperRunning, boolean switchOn) {
        if (underWay || (wrote && now - ownWriteAt < OWN_WRITE_MS)) return false;
        return paired && !helperRunning && switchOn;
    }
}
