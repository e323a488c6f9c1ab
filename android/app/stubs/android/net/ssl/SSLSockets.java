package android.net.ssl;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * Compile-only stub (never packaged). Not in the excerpts; from AOSP frameworks/base
 * core/java/android/net/ssl/SSLSockets.java (the class is API 29; exportKeyingMaterial is API 31):
 *   public static boolean isSupportedSocket(@NonNull SSLSocket socket)
 *   public static byte[] exportKeyingMaterial(@NonNull SSLSocket socket, @NonNull String label,
 *           @Nullable byte[] context, int length) throws SSLException
 */
public class SSLSockets {
    SSLSockets() {
        throw new RuntimeException("Stub!");
    }

    public static boolean isSupportedSocket(SSLSocket socket) {
        throw new RuntimeException("Stub!");
    }

    public static byte[] exportKeyingMaterial(SSLSocket socket, String label, byte[] context, int length) throws SSLException {
        throw new RuntimeException("Stub!");
    }
}
