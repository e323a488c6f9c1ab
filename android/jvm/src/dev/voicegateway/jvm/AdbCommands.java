package dev.voicegateway.jvm;

import dev.voicegateway.core.adb.AdbConnection;
import dev.voicegateway.core.adb.AdbKey;
import dev.voicegateway.core.adb.AdbPairingClient;
import java.io.File;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The runner's ADB subcommands, the app's Wireless-debugging code driven from outside (issue 24):
 * <pre>
 *   adb-pair HOST:PORT CODE --key-dir DIR          pair DIR's key (made on first use) with the code
 *   adb-shell HOST:PORT --key-dir DIR -- COMMAND…  run COMMAND as the shell with the paired key
 *   adb-start HOST:PORT --key-dir DIR …            the app's whole start run (AdbStart)
 * </pre>
 * Exit 0 on success; 1 with the reason on stderr otherwise; 2 for a usage error. The key's bytes are
 * never printed, only its fingerprint.
 */
final class AdbCommands {
    static final String USAGE = "usage: adb-pair HOST:PORT CODE --key-dir DIR\n"
            + "       adb-shell HOST:PORT --key-dir DIR -- COMMAND...\n"
            + "       adb-start HOST:PORT --key-dir DIR [--stale-port P] [--await-file PATH] -- COMMAND...\n";
    private static final int TIMEOUT_MS = 15000;

    private AdbCommands() {}

    static boolean handles(String[] args) {
        return args.length > 0 && (args[0].equals("adb-pair") || args[0].equals("adb-shell") || args[0].equals("adb-start"));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args[0].equals("adb-start")) return AdbStart.run(args, out, err);
        List<String> positional = new ArrayList<String>();
        List<String> command = new ArrayList<String>();
        String keyDir = null;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--")) {
                for (int j = i + 1; j < args.length; j++) command.add(args[j]);
                break;
            } else if (args[i].equals("--key-dir") && i + 1 < args.length) {
                keyDir = args[++i];
            } else if (args[i].startsWith("--")) {
                err.print("unknown option " + args[i] + "\n" + USAGE);
                return 2;
            } else {
                positional.add(args[i]);
            }
        }
        boolean pair = args[0].equals("adb-pair");
        if (keyDir == null || positional.size() != (pair ? 2 : 1) || (!pair && command.isEmpty())) {
            err.print(USAGE);
            return 2;
        }
        String target = positional.get(0);
        int colon = target.lastIndexOf(':');
        int port;
        try {
            port = Integer.parseInt(target.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (colon <= 0 || port <= 0 || port > 65535) {
            err.print("not HOST:PORT: " + target + "\n" + USAGE);
            return 2;
        }
        String host = target.substring(0, colon);
        SecureRandom random = new SecureRandom();
        try {
            if (pair) {
                AdbKey key = AdbKey.loadOrCreate(new File(keyDir), random);
                AdbPairingClient.Paired paired = new AdbPairingClient(new BcAdbTls(random), key, "voicegateway@jvm", random, TIMEOUT_MS)
                        .pair(host, port, positional.get(1));
                out.println("paired with " + host + ":" + port + " (key " + key.fingerprint() + "; the phone says: " + paired.peerData + ")");
                return 0;
            }
            AdbKey key = AdbKey.load(new File(keyDir));
            if (key == null) {
                err.println("no ADB key in " + keyDir + ": pair first (adb-pair)");
                return 1;
            }
            StringBuilder line = new StringBuilder();
            for (String part : command) line.append(line.length() == 0 ? "" : " ").append(part);
            AdbConnection.ShellResult result = AdbConnection.shell(new BcAdbTls(random), key, host, port, line.toString(), TIMEOUT_MS);
            out.print(result.output);
            out.flush();
            return 0;
        } catch (Exception e) {
            err.println("voice-gateway phone:jvm " + args[0] + ": " + e.getMessage());
            if (System.getenv("VG_ADB_DEBUG") != null) e.printStackTrace(err);
            return 1;
        }
    }
}
