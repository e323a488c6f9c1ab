package dev.voicegateway.core.adb;

import java.io.IOException;
import java.net.ConnectException;

/**
 * One attempt to start the audio helper through the phone's own Wireless debugging (issue 24): turn
 * Wireless debugging on if allowed and needed, find its connect port, run the helper's start command
 * as the shell with the paired key, wait for the helper to announce itself on its Binder channel, and
 * turn Wireless debugging off again if it was off. Blocking, on a worker thread; every platform step
 * is a {@link Platform} call, so the whole sequence, its failures and the restore of the setting are
 * tested on the host (SelfStartRunTest). The platform facts it relies on are cited at each step.
 */
public final class SelfStartRun {
    /** The phone, as the run needs it. The app implements it with Settings, NsdManager and AdbConnection. */
    public interface Platform {
        boolean onWifi();

        /** Settings.Global "adb_wifi_enabled" reads 1. */
        boolean wirelessDebuggingOn();

        /** Writes "adb_wifi_enabled"; false when the write is not allowed (WRITE_SECURE_SETTINGS not granted). */
        boolean setWirelessDebugging(boolean on);

        /**
         * Settings.Global "adb_enabled" (USB debugging) reads 1. With it off, writing adb_wifi_enabled = 0
         * stops adbd altogether (AOSP AdbService.stopAdbd: ctl.stop adbd when neither transport is on), and
         * init kills the helper with it: the helper is a child of adbd's shell, in adbd's process cgroup.
         */
        boolean usbDebuggingOn();

        /**
         * Remembers, in private storage, that the app turned Wireless debugging on and must turn it off
         * (true before the write, false after the restore): a run cut short by the process dying is
         * restored by the next one (SelfStart.Action.TURN_OFF_WIRELESS_DEBUGGING).
         */
        void rememberTurnedOn(boolean on);

        /**
         * The port of this phone's own _adb-tls-connect._tcp, or -1 when none appeared within
         * {@code timeoutMs}; a port equal to {@code stalePort} does not count (it refused a connection).
         */
        int connectPort(long timeoutMs, int stalePort) throws InterruptedException;

        /** Runs {@code command} as the shell through adbd at {@code port} on this phone, with the paired key. */
        String shell(int port, String command) throws IOException;

        /** Waits until the helper has announced itself and the app holds it; false on timeout. */
        boolean awaitHelper(long timeoutMs) throws InterruptedException;
    }

    public enum Outcome {
        STARTED,
        NOT_ON_WIFI,
        /** Off, and the app may not (or could not) turn it on: the one-tap notification. */
        WIRELESS_DEBUGGING_OFF,
        /** The app turned it on and Android turned it off again: this Wi-Fi is not one the person allowed. */
        NETWORK_NOT_ALLOWED,
        /** adbd refused the key: the pairing was forgotten (or revoked) in the settings. */
        PAIRING_FORGOTTEN,
        /** The announced port refused the connection, twice: Wireless debugging restarted on a new port. */
        PORT_CHANGED,
        /** Nothing announced _adb-tls-connect._tcp in time although the setting reads on. */
        NOT_ANNOUNCED,
        CONNECT_FAILED,
        /** The command ran but no helper announced itself in time. */
        HELPER_SILENT,
    }

    public static final class Timeouts {
        /** Android starts adbd's TLS server and announces it within seconds (AdbConnectionPortPoller). */
        public long discoveryMs = 15000;
        public long helperMs = 10000;
    }

    /** What happened, in plain words for the status screen and the notification. */
    public static final class Result {
        public final Outcome outcome;
        public final String message;
        /** The app turned Wireless debugging on for this run and off again. */
        public final boolean restored;

        Result(Outcome outcome, String message, boolean restored) {
            this.outcome = outcome;
            this.message = message;
            this.restored = restored;
        }
    }

    private final Platform platform;
    private final Timeouts timeouts;

    public SelfStartRun(Platform platform, Timeouts timeouts) {
        this.platform = platform;
        this.timeouts = timeouts;
    }

    /**
     * Runs the attempt. {@code mayTurnOn}: the app holds WRITE_SECURE_SETTINGS and this Android honours
     * the setting written by an app (SelfStart.mayTurnOnItself). The start command is the helper's
     * (core/helper/StartCommand.shell): it detaches the helper and returns at once.
     */
    public Result run(String startCommand, boolean mayTurnOn) throws InterruptedException {
        if (!platform.onWifi()) return result(Outcome.NOT_ON_WIFI, false);
        boolean turnedOn = false;
        Result result = null;
        try {
            if (!platform.wirelessDebuggingOn()) {
                if (!mayTurnOn) return result(Outcome.WIRELESS_DEBUGGING_OFF, false);
                platform.rememberTurnedOn(true);
                if (!platform.setWirelessDebugging(true)) {
                    platform.rememberTurnedOn(false);
                    return result(Outcome.WIRELESS_DEBUGGING_OFF, false);
                }
                turnedOn = true;
            }
            result = connectAndStart(startCommand, turnedOn);
            if (turnedOn && result.outcome == Outcome.STARTED && !platform.usbDebuggingOn()) {
                // Turning it off would stop adbd and kill the helper just started (Platform.usbDebuggingOn);
                // Shizuku's BootCompleteReceiver never turns it off either. Left on, and said so.
                turnedOn = false;
                platform.rememberTurnedOn(false);
                result = new Result(Outcome.STARTED, message(Outcome.STARTED) + " " + LEFT_ON, false);
            }
            return result;
        } finally {
            if (turnedOn) {
                platform.setWirelessDebugging(false);
                platform.rememberTurnedOn(false);
            }
        }
    }

    /** Why the app left Wireless debugging on after a start with USB debugging off. */
    static final String LEFT_ON = "Wireless debugging stays on: with USB debugging off, turning it off would stop the helper too.";

    private Result connectAndStart(String startCommand, boolean turnedOn) throws InterruptedException {
        int stale = -1;
        for (int attempt = 0; attempt < 2; attempt++) {
            int port = platform.connectPort(timeouts.discoveryMs, stale);
            if (port < 0) {
                // AdbDebuggingManager (MSG_ADBDWIFI_ENABLE) writes adb_wifi_enabled back to 0 when the
                // phone is not on Wi-Fi or the network is not one the person allowed.
                if (!platform.wirelessDebuggingOn()) {
                    return result(turnedOn ? Outcome.NETWORK_NOT_ALLOWED : Outcome.WIRELESS_DEBUGGING_OFF, turnedOn);
                }
                return result(stale > 0 ? Outcome.PORT_CHANGED : Outcome.NOT_ANNOUNCED, turnedOn);
            }
            try {
                platform.shell(port, startCommand);
            } catch (AdbConnection.KeyRefused e) {
                return result(Outcome.PAIRING_FORGOTTEN, turnedOn);
            } catch (ConnectException e) {
                // Nothing listens there: a stale announcement from before Wireless debugging restarted.
                stale = port;
                continue;
            } catch (IOException e) {
                return new Result(Outcome.CONNECT_FAILED, message(Outcome.CONNECT_FAILED) + " (" + e.getMessage() + ")", turnedOn);
            }
            if (!platform.awaitHelper(timeouts.helperMs)) return result(Outcome.HELPER_SILENT, turnedOn);
            return result(Outcome.STARTED, turnedOn);
        }
        return result(Outcome.PORT_CHANGED, turnedOn);
    }

    private static Result result(Outcome outcome, boolean restored) {
        return new Result(outcome, message(outcome), restored);
    }

    /** A person's sentence for each outcome. */
    public static String message(Outcome outcome) {
        switch (outcome) {
            case STARTED:
                return "The audio helper is running.";
            case NOT_ON_WIFI:
                return "Not on Wi-Fi: Wireless debugging works only on Wi-Fi. Connect the phone to Wi-Fi.";
            case WIRELESS_DEBUGGING_OFF:
                return "Wireless debugging is off. Turn it on (Developer options > Wireless debugging) to restore call audio.";
            case NETWORK_NOT_ALLOWED:
                return "Android turned Wireless debugging off again: this Wi-Fi is not allowed for it. Turn it on once by hand on this"
                        + " network and tick \"Always allow on this network\".";
            case PAIRING_FORGOTTEN:
                return "The phone has forgotten the pairing (Wireless debugging > Paired devices). Pair again from the app.";
            case PORT_CHANGED:
                return "Wireless debugging's port changed while connecting. Try again.";
            case NOT_ANNOUNCED:
                return "Wireless debugging is on but did not announce itself on this Wi-Fi. Turn it off and on again.";
            case CONNECT_FAILED:
                return "Could not connect to Wireless debugging.";
            default:
                return "The start command ran, but the audio helper did not answer. Read adb logcat -s VGAudioHelper from a computer.";
        }
    }
}
