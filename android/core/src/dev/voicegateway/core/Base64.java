package dev.voicegateway.core;

/**
 * Standard base64 with padding (RFC 4648), for the WebSocket handshake: neither java.util.Base64
 * (API 26) nor android.util.Base64 (not on the host) is available to the core.
 */
public final class Base64 {
    private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private Base64() {
    }

    public static String encode(byte[] data) {
        StringBuilder out = new StringBuilder((data.length + 2) / 3 * 4);
        int i = 0;
        for (; i + 2 < data.length; i += 3) {
            int n = (data[i] & 0xff) << 16 | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff);
            out.append(ALPHABET[n >>> 18]).append(ALPHABET[n >>> 12 & 63]).append(ALPHABET[n >>> 6 & 63]).append(ALPHABET[n & 63]);
        }
        int rest = data.length - i;
        if (rest == 1) {
            int n = (data[i] & 0xff) << 16;
            out.append(ALPHABET[n >>> 18]).append(ALPHABET[n >>> 12 & 63]).append("==");
        } else if (rest == 2) {
            int n = (data[i] & 0xff) << 16 | (data[i + 1] & 0xff) << 8;
            out.append(ALPHABET[n >>> 18]).append(ALPHABET[n >>> 12 & 63]).append(ALPHABET[n >>> 6 & 63]).append('=');
        }
        return out.toString();
    }
}
