package dev.voicegateway.core;

import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * How https:// and wss:// connections are made: the TLS socket factory (which certificates are
 * trusted) and the check that the certificate names the host. A raw SSLSocket checks no names,
 * so the WebSocket client calls the verifier itself after the handshake.
 */
public final class TlsConfig {
    public final SSLSocketFactory socketFactory;
    public final HostnameVerifier hostnameVerifier;

    public TlsConfig(SSLSocketFactory socketFactory, HostnameVerifier hostnameVerifier) {
        if (socketFactory == null || hostnameVerifier == null) throw new IllegalArgumentException("TlsConfig needs both parts");
        this.socketFactory = socketFactory;
        this.hostnameVerifier = hostnameVerifier;
    }

    /**
     * The platform's trust store and hostname verifier (on Android, the same ones as every
     * HttpsURLConnection). On a desktop JVM the default verifier accepts nothing: pass your own.
     */
    public static TlsConfig platform() {
        return new TlsConfig((SSLSocketFactory) SSLSocketFactory.getDefault(), HttpsURLConnection.getDefaultHostnameVerifier());
    }
}
