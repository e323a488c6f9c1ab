package dev.voicegateway.core;

import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.util.Locale;

/**
 * What pairing needs: the gateway's address and a one-time code. It comes from the pairing QR
 * code's {@code voicegateway://pair?url=…&code=…} (phone-protocol.md section 1), or typed by hand.
 */
public final class PairLink {
    public static final String SCHEME = "voicegateway";
    private static final int MAX_CODE = 100;

    public final GatewayAddress gateway;
    public final String code;

    private PairLink(GatewayAddress gateway, String code) {
        this.gateway = gateway;
        this.code = code;
    }

    /** Thrown with a message for the status screen. */
    public static final class Invalid extends Exception {
        public Invalid(String message) {
            super(message);
        }
    }

    /** Reads a scanned or opened link. */
    public static PairLink parse(String link) throws Invalid {
        if (link == null) throw new Invalid("No pairing link.");
        String text = link.trim();
        String prefix = SCHEME + "://pair";
        if (!text.toLowerCase(Locale.ROOT).startsWith(prefix)) {
            throw new Invalid("This is not a Voice Gateway pairing code (it should start with " + prefix + "?).");
        }
        String rest = text.substring(prefix.length());
        if (rest.startsWith("/")) rest = rest.substring(1);
        if (!rest.startsWith("?")) throw new Invalid("The pairing link has no url and code.");
        String url = null;
        String code = null;
        for (String part : rest.substring(1).split("&")) {
            int eq = part.indexOf('=');
            if (eq <= 0) continue;
            String key = part.substring(0, eq);
            String value = decode(part.substring(eq + 1));
            if (key.equals("url")) url = value;
            else if (key.equals("code")) code = value;
        }
        if (url == null || url.isEmpty()) throw new Invalid("The pairing link has no gateway address (url=).");
        if (code == null || code.isEmpty()) throw new Invalid("The pairing link has no code (code=).");
        return typed(url, code);
    }

    /** Reads an address and a code typed by hand. */
    public static PairLink typed(String address, String code) throws Invalid {
        GatewayAddress gateway;
        try {
            gateway = GatewayAddress.parse(address);
        } catch (IllegalArgumentException e) {
            throw new Invalid(e.getMessage());
        }
        String c = code == null ? "" : code.trim();
        if (c.isEmpty()) throw new Invalid("Enter the pairing code shown by the gateway.");
        if (c.length() > MAX_CODE || !c.matches("[A-Za-z0-9 _-]+")) {
            throw new Invalid("The pairing code may hold only letters, digits, spaces, '-' and '_'.");
        }
        return new PairLink(gateway, c);
    }

    private static String decode(String value) throws Invalid {
        try {
            return URLDecoder.decode(value, "UTF-8");
        } catch (IllegalArgumentException e) {
            throw new Invalid("The pairing link is damaged (bad %-escape).");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
