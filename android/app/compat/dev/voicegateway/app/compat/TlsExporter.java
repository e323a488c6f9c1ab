package dev.voicegateway.app.compat;

import android.net.ssl.SSLSockets;
import android.os.Build;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * RFC 5705/8446 keying-material export from the platform's TLS, which ADB pairing's password needs
 * (core/adb/AdbPairingClient). Public API from Android 12 (API 31:
 * android.net.ssl.SSLSockets.exportKeyingMaterial, AOSP frameworks/base
 * core/java/android/net/ssl/SSLSockets.java); before it, none is public (docs/android.md).
 */
public final class TlsExporter {
    private TlsExporter() {
    }

    public static boolean available() {
        return Build.VERSION.SDK_INT >= 31;
    }

    /** The exported bytes, or null when this Android has no public exporter or the socket is not the platform's. */
    public static byte[] export(SSLSocket socket, String label, int length) throws SSLException {
        if (Build.VERSION.SDK_INT < 31 || !SSLSockets.isSupportedSocket(socket)) return null;
        return SSLSockets.exportKeyingMaterial(socket, label, null, length);
    }
}
