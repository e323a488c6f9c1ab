package dev.voicegateway.core.adb;

import java.util.List;
import java.util.Set;

/**
 * The pure parts of finding the phone's own adbd and reading the pairing code (issue 24). The app's
 * adapter feeds NsdManager's resolved services (_adb-tls-pairing._tcp while "Pair device with pairing
 * code" is open, _adb-tls-connect._tcp while Wireless debugging is on) and the notification's inline
 * reply here (app/adb/NsdDiscovery, app/adb/PairingNotification).
 */
public final class AdbDiscovery {
    public static final String PAIRING_TYPE = "_adb-tls-pairing._tcp";
    public static final String CONNECT_TYPE = "_adb-tls-connect._tcp";

    /** One resolved service: its type, the address it resolved to, and its port. */
    public static final class Service {
        public final String type;
        public final String host;
        public final int port;

        public Service(String type, String host, int port) {
            this.type = type;
            this.host = host;
            this.port = port;
        }
    }

    private AdbDiscovery() {}

    /**
     * The port of our own phone's service of {@code type}, or -1: on a shared Wi-Fi, other phones
     * announce the same service types, so only a service that resolved to one of this phone's own
     * addresses counts. When several do (a stale announcement after a port change), the last seen wins.
     */
    public static int ownPort(List<Service> seen, String type, Set<String> ownAddresses) {
        int port = -1;
        for (Service s : seen) {
            if (s.type.startsWith(type) && s.port > 0 && s.port <= 65535 && ownAddresses.contains(s.host)) port = s.port;
        }
        return port;
    }

    /**
     * The six-digit code from what the user typed into the notification (spaces and dashes allowed,
     * as the dialog groups digits), or null when it is not six digits.
     */
    public static String pairingCode(CharSequence typed) {
        if (typed == null) return null;
        StringBuilder digits = new StringBuilder();
        for (int i = 0; i < typed.length(); i++) {
            char c = typed.charAt(i);
            if (c >= '0' && c <= '9') {
                digits.append(c);
            } else if (c != ' ' && c != '-' && c != '\u00a0') {
                return null;
            }
        }
        return digits.length() == 6 ? digits.toString() : null;
    }
}
