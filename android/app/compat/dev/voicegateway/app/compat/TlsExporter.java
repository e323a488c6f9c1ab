package dev.voicegateway.app.compat;

import android.os.Build;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * RFC 5705/8446 keying-material export from the platform's TLS, which ADB pairing's password needs
 * (core/adb/AdbPairingClient). Public API from Android 12 (API 31:
 * android.net.ssl.SSLSockets.exportKeyingMaterial(SSLSocket, String, byte[], int) and
 * isSupportedSocket(SSLSocket), AOSP frameworks/base core/java/android/net/ssl/SSLSockets.java);
 * before it, none is public (docs/android.md). Called by reflection: the API 34 excerpts this
 * repository's stubs are held to do not carry the class, so no compile-only stub is written for it.
 */
public final class TlsExporter {
    private TlsExporter() {
    }

    public static boolean available() {
        return Build.VERSION.SDK_INT >= 31;
    }

    /** The exported bytes, or null when this Android has no public exporter or the socket is not the platform's. */
    public static byte[] export(SSLSocket socket, String label, int length) throws SSLException {
        if (Build.VERSION.SDK_INT < 31) return null;
        try {
            Class<?> sockets = Class.forName("android.net.ssl.SSLSockets");
            Method supported = sockets.getMethod("isSupportedSocket", SSLSocket.class);
            if (!Boolean.TRUE.equals(supported.invoke(null, socket))) return null;
            Method export = sockets.getMethod("exportKeyingMaterial", SSLSocket.class, String.class, byte[].class, int.class);
            return (byte[]) export.invoke(null, socket, label, null, length);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SSLException) throw (SSLException) cause;
            throw new SSLException("exportKeyingMaterial failed: " + cause);
        } catch (ReflectiveOperationException e) {
            throw new SSLException("no android.net.ssl.SSLSockets on this Android: " + e);
        }
    }
}
