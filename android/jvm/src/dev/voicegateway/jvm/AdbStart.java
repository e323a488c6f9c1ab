package dev.voicegateway.jvm;

import dev.voicegateway.core.adb.AdbConnection;
import dev.voicegateway.core.adb.AdbKey;
import dev.voicegateway.core.adb.SelfStartRun;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;

/**
 * {@code adb-start HOST:PORT --key-dir DIR [--stale-port P] [--await-file PATH] -- COMMAND…}: the app's
 * start run ({@link SelfStartRun}) against a real adbd, with what only a phone has played by the host:
 * the Wireless debugging switch is a variable that starts off (the run turns it on and must put it back;
 * each change is printed), discovery answers {@code --stale-port} first (a port where nothing listens,
 * as after Wireless debugging restarted) and then HOST:PORT, and "the helper announced itself" is
 * {@code --await-file} appearing (the command creates it), or the command's return without it. Prints
 * {@code outcome: NAME: message}; exit 0 for STARTED, 1 otherwise, 2 for a usage error.
 */
final class AdbStart {
    static final String USAGE = "usage: adb-start HOST:PORT --key-dir DIR [--stale-port P] [--await-file PATH] -- COMMAND...\n";
    private static final int TIMEOUT_MS = 15000;

    private AdbStart() {}

    static int run(String[] args, final PrintStream out, PrintStream err) {
        String target = null;
        String keyDir = null;
        String awaitFile = null;
        int stale = -1;
        StringBuilder command = new StringBuilder();
        try {
            for (int i = 1; i < args.length; i++) {
                if (args[i].equals("--")) {
                    for (int j = i + 1; j < args.length; j++) command.append(command.length() == 0 ? "" : " ").append(args[j]);
                    break;
                } else if (args[i].equals("--key-dir") && i + 1 < args.length) {
                    keyDir = args[++i];
                } else if (args[i].equals("--stale-port") && i + 1 < args.length) {
                    stale = Integer.parseInt(args[++i]);
                } else if (args[i].equals("--await-file") && i + 1 < args.length) {
                    awaitFile = args[++i];
                } else if (target == null && !args[i].startsWith("--")) {
                    target = args[i];
                } else {
                    err.print("unexpected " + args[i] + "\n" + USAGE);
                    return 2;
                }
            }
        } catch (NumberFormatException e) {
            err.print(USAGE);
            return 2;
        }
        int colon = target == null ? -1 : target.lastIndexOf(':');
        if (keyDir == null || colon <= 0 || command.length() == 0) {
            err.print(USAGE);
            return 2;
        }
        final String host = target.substring(0, colon);
        final int port;
        try {
            port = Integer.parseInt(target.substring(colon + 1));
        } catch (NumberFormatException e) {
            err.print("not HOST:PORT: " + target + "\n" + USAGE);
            return 2;
        }
        final File keys = new File(keyDir);
        final File announced = awaitFile == null ? null : new File(awaitFile);
        final int stalePort = stale;
        final SecureRandom random = new SecureRandom();
        SelfStartRun.Platform platform = new SelfStartRun.Platform() {
            private boolean on;
            private boolean staleOffered;

            @Override
            public boolean onWifi() {
                return true;
            }

            @Override
            public boolean wirelessDebuggingOn() {
                return on;
            }

            @Override
            public boolean setWirelessDebugging(boolean v) {
                on = v;
                out.println("wireless debugging " + (v ? "on" : "off"));
                return true;
            }

            @Override
            public boolean usbDebuggingOn() {
                // Debian's adbd runs whatever the switch says: the restore is exercised as on a phone with USB debugging on.
                return true;
            }

            @Override
            public void rememberTurnedOn(boolean v) {
            }

            @Override
            public int connectPort(long timeoutMs, int refused) {
                if (stalePort > 0 && !staleOffered) {
                    staleOffered = true;
                    return stalePort;
                }
                return port == refused ? -1 : port;
            }

            @Override
            public String shell(int p, String cmd) throws IOException {
                AdbKey key;
                try {
                    key = AdbKey.load(keys);
                } catch (GeneralSecurityException e) {
                    throw new IOException("the key in " + keys + " cannot be read: " + e.getMessage(), e);
                }
                if (key == null) throw new AdbConnection.KeyRefused("no ADB key in " + keys, null);
                out.println("connecting to " + host + ":" + p);
                return AdbConnection.shell(new BcAdbTls(random), key, host, p, cmd, TIMEOUT_MS).output;
            }

            @Override
            public boolean awaitHelper(long timeoutMs) throws InterruptedException {
                if (announced == null) return true;
                long deadline = System.currentTimeMillis() + timeoutMs;
                while (!announced.exists() && System.currentTimeMillis() < deadline) Thread.sleep(50);
                return announced.exists();
            }
        };
        SelfStartRun.Timeouts timeouts = new SelfStartRun.Timeouts();
        timeouts.helperMs = 5000;
        try {
            SelfStartRun.Result result = new SelfStartRun(platform, timeouts).run(command.toString(), true);
            out.println("outcome: " + result.outcome + ": " + result.message);
            return result.outcome == SelfStartRun.Outcome.STARTED ? 0 : 1;
        } catch (InterruptedException e) {
            err.println("interrupted");
            return 1;
        }
    }
}
