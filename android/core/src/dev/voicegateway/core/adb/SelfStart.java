package dev.voicegateway.core.adb;

import dev.voicegateway.core.Protocol;

/**
 * What the app does next to get its audio helper running without a computer (issue 24), from what it
 * knows now; pure, so the flow across a reboot is tested on the host. The app's adapters (NsdManager
 * discovery, the notification, Settings, {@link AdbConnection}) carry the actions out and call again
 * with the new facts (app/adb/SelfStarter).
 *
 * <p>Order of needs: the helper already running needs nothing (but Wireless debugging is turned off
 * again if we turned it on); Android below 12 has no public TLS exporter, so the computer path; then a
 * pairing; then Wi-Fi (AOSP's AdbDebuggingManager keeps Wireless debugging on only on Wi-Fi); then
 * Wireless debugging on, by the app itself when it holds WRITE_SECURE_SETTINGS on Android 13+ (the
 * global setting "adb_wifi_enabled", as Shizuku does; {@link #mayTurnOnItself}), else by the user after
 * a notification; then connect and start ({@link SelfStartRun}).
 */
public final class SelfStart {
    public enum Action {
        NOTHING,
        /** Android 8-11: show the adb command for a computer. */
        COMPUTER_ONLY,
        /** Ask the user to open "Pair device with pairing code" and type the code into our notification. */
        ASK_TO_PAIR,
        /** Wireless debugging needs Wi-Fi: tell the user. */
        JOIN_WIFI,
        /** Turn Wireless debugging on ourselves (WRITE_SECURE_SETTINGS held), remembering we did. */
        TURN_ON_WIRELESS_DEBUGGING,
        /** Without the grant: a notification whose tap opens Wireless debugging's switch. */
        NOTIFY_TURN_ON_WIRELESS_DEBUGGING,
        /** Discover _adb-tls-connect._tcp, connect with the paired key, run the start command, await the helper. */
        CONNECT_AND_START,
        /** The helper runs and we turned Wireless debugging on: turn it off again. */
        TURN_OFF_WIRELESS_DEBUGGING,
    }

    /** What the app knows; immutable, each with-method a copy. */
    public static final class Facts {
        public final int sdk;
        public final boolean paired;
        public final boolean helperRanBefore;
        public final boolean canWriteSecureSettings;
        public final boolean onWifi;
        public final boolean wirelessDebuggingOn;
        public final boolean weTurnedItOn;
        public final boolean helperRunning;

        public Facts(int sdk, boolean paired, boolean helperRanBefore, boolean canWriteSecureSettings, boolean onWifi,
                boolean wirelessDebuggingOn, boolean weTurnedItOn, boolean helperRunning) {
            this.sdk = sdk;
            this.paired = paired;
            this.helperRanBefore = helperRanBefore;
            this.canWriteSecureSettings = canWriteSecureSettings;
            this.onWifi = onWifi;
            this.wirelessDebuggingOn = wirelessDebuggingOn;
            this.weTurnedItOn = weTurnedItOn;
            this.helperRunning = helperRunning;
        }

        public Facts paired(boolean v) {
            return new Facts(sdk, v, helperRanBefore, canWriteSecureSettings, onWifi, wirelessDebuggingOn, weTurnedItOn, helperRunning);
        }

        public Facts onWifi(boolean v) {
            return new Facts(sdk, paired, helperRanBefore, canWriteSecureSettings, v, wirelessDebuggingOn, weTurnedItOn, helperRunning);
        }

        public Facts wirelessDebugging(boolean on, boolean byUs) {
            return new Facts(sdk, paired, helperRanBefore, canWriteSecureSettings, onWifi, on, byUs, helperRunning);
        }

        public Facts helperRunning(boolean v) {
            return new Facts(sdk, paired, helperRanBefore || v, canWriteSecureSettings, onWifi, wirelessDebuggingOn, weTurnedItOn, v);
        }

        /** After a restart of the phone: the helper is gone, Wireless debugging is off (Android turns it off at boot). */
        public Facts rebooted() {
            return new Facts(sdk, paired, helperRanBefore, canWriteSecureSettings, onWifi, false, false, false);
        }
    }

    private SelfStart() {}

    public static Action next(Facts f) {
        if (f.helperRunning) {
            return f.weTurnedItOn && f.wirelessDebuggingOn ? Action.TURN_OFF_WIRELESS_DEBUGGING : Action.NOTHING;
        }
        if (f.sdk < 31) return Action.COMPUTER_ONLY;
        if (!f.paired) return Action.ASK_TO_PAIR;
        if (!f.onWifi) return Action.JOIN_WIFI;
        if (!f.wirelessDebuggingOn) {
            return mayTurnOnItself(f.sdk, f.canWriteSecureSettings) ? Action.TURN_ON_WIRELESS_DEBUGGING : Action.NOTIFY_TURN_ON_WIRELESS_DEBUGGING;
        }
        return Action.CONNECT_AND_START;
    }

    /**
     * Whether the app turns Wireless debugging on by itself: with WRITE_SECURE_SETTINGS granted, and
     * only from Android 13 (API 33). Android resets "adb_wifi_enabled" to 0 at every boot (AOSP
     * AdbService.initAdbState sets mIsAdbWifiEnabled = false, systemReady writes it to the setting) and
     * AdbService follows later writes of the setting; Shizuku's BootCompleteReceiver does this only from
     * TIRAMISU, citing the platform change r.android.com/2128832, and we follow it rather than promise
     * what no one here has seen on 12. Below 33 the grant changes nothing: the one-tap notification.
     */
    public static boolean mayTurnOnItself(int sdk, boolean canWriteSecureSettings) {
        return canWriteSecureSettings && sdk >= 33;
    }

    /** health.audio: running; stopped once paired or once a helper ran here; pairing_required before. */
    public static String health(Facts f) {
        if (f.helperRunning) return Protocol.AUDIO_RUNNING;
        return f.paired || f.helperRanBefore ? Protocol.AUDIO_STOPPED : Protocol.AUDIO_PAIRING_REQUIRED;
    }

    /** What the console and the notification say for an action: a person's next step. */
    public static String advice(Action a) {
        switch (a) {
            case COMPUTER_ONLY:
                return "Start the audio helper from a computer with adb (this Android version cannot pair with itself).";
            case ASK_TO_PAIR:
                return "Open Developer options > Wireless debugging > Pair device with pairing code, and type the code into the app's notification.";
            case JOIN_WIFI:
                return "Connect the phone to Wi-Fi: Wireless debugging works only on Wi-Fi.";
            case NOTIFY_TURN_ON_WIRELESS_DEBUGGING:
                return "Turn on Wireless debugging (one tap on the notification) to restore call audio.";
            case TURN_ON_WIRELESS_DEBUGGING:
            case CONNECT_AND_START:
                return "Starting the audio helper through Wireless debugging.";
            default:
                return "";
        }
    }
}
