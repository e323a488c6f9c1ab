package dev.voicegateway.core.adb;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * TLS 1.3 as ADB speaks it, behind one seam so the protocol code ({@link AdbPairingClient},
 * {@link AdbConnection}) does not care whose TLS runs: on the phone the platform's (Conscrypt, whose
 * keying-material exporter is public from API 31: android.net.ssl.SSLSockets), on the host JVM
 * BouncyCastle's bctls (the JDK's TLS exports nothing).
 *
 * <p>Both ADB uses present our {@link AdbKey} as the client certificate and accept any server
 * certificate: in pairing, SPAKE2 over the exported keying material is what authenticates both
 * sides; on the transport, adbd is our own phone reached over a connection we opened (AOSP adb's
 * client accepts any device certificate too: client/transport_tls or adb_wifi's verify callback).
 */
public interface AdbTls {
    /** Runs the TLS 1.3 handshake as the client over {@code socket}, presenting {@code key}. */
    Session handshake(Socket socket, AdbKey key) throws IOException;

    /** An established TLS session. */
    interface Session {
        InputStream input() throws IOException;

        OutputStream output() throws IOException;

        /** RFC 8446 section 7.5's exporter (no context); throws when the TLS below offers none. */
        byte[] exportKeyingMaterial(byte[] label, int length) throws IOException;

        void close() throws IOException;
    }
}
