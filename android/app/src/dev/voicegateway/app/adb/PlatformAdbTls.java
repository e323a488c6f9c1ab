package dev.voicegateway.app.adb;

import dev.voicegateway.app.compat.TlsExporter;
import dev.voicegateway.core.adb.AdbKey;
import dev.voicegateway.core.adb.AdbTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * ADB's TLS on the phone: the platform's own TLS (Conscrypt), TLS 1.3 only, our {@link AdbKey} as the
 * client certificate, any server certificate accepted (see {@link AdbTls} for why), and the keying
 * material exported through {@link TlsExporter} (Android 12+). Never run on a device yet
 * (docs/android.md, "What has not been verified on a device").
 */
public final class PlatformAdbTls implements AdbTls {
    private static final String ALIAS = "adb";
    private final SecureRandom random;

    public PlatformAdbTls(SecureRandom random) {
        this.random = random;
    }

    @Override
    public Session handshake(Socket socket, final AdbKey key) throws IOException {
        if (!TlsExporter.available()) {
            throw new IOException("pairing from the phone needs Android 12 or later; use a computer with adb");
        }
        final SSLSocket tls;
        try {
            SSLContext context = SSLContext.getInstance("TLSv1.3");
            context.init(new KeyManager[] {keyManager(key)}, new TrustManager[] {ANY_SERVER}, random);
            tls = (SSLSocket) context.getSocketFactory().createSocket(socket, socket.getInetAddress().getHostAddress(), socket.getPort(), false);
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS 1.3 is unavailable: " + e.getMessage(), e);
        }
        tls.setUseClientMode(true);
        tls.setEnabledProtocols(new String[] {"TLSv1.3"});
        tls.startHandshake();
        return new Session() {
            @Override
            public InputStream input() throws IOException {
                return tls.getInputStream();
            }

            @Override
            public OutputStream output() throws IOException {
                return tls.getOutputStream();
            }

            @Override
            public byte[] exportKeyingMaterial(byte[] label, int length) throws IOException {
                byte[] out = TlsExporter.export(tls, new String(label, Charset.forName("US-ASCII")), length);
                if (out == null) throw new IOException("the platform's TLS exported no keying material");
                return out;
            }

            @Override
            public void close() throws IOException {
                tls.close();
            }
        };
    }

    private static final X509TrustManager ANY_SERVER = new X509TrustManager() {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            // never a server here
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // Accepted as it is: pairing authenticates by SPAKE2; the transport's peer is our own adbd.
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    };

    private static X509KeyManager keyManager(final AdbKey key) {
        return new X509KeyManager() {
            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {ALIAS};
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return ALIAS;
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return new X509Certificate[] {key.certificate()};
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return key.privateKey();
            }
        };
    }
}
