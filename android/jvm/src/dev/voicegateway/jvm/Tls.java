package dev.voicegateway.jvm;

import dev.voicegateway.core.TlsConfig;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/** TLS on the host: the JVM's trusted roots, plus the certificate of --trust (a self-signed test gateway). */
final class Tls {
    private Tls() {
    }

    static TlsConfig config(String trustPem) throws IOException, GeneralSecurityException {
        if (trustPem == null) return new TlsConfig(SSLContext.getDefault().getSocketFactory(), new HostnameCheck());
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        InputStream in = new FileInputStream(trustPem);
        try {
            Collection<? extends java.security.cert.Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
            int i = 0;
            for (java.security.cert.Certificate c : certs) store.setCertificateEntry("trusted-" + i++, c);
        } finally {
            in.close();
        }
        TrustManagerFactory extra = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        extra.init(store);
        TrustManagerFactory system = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        system.init((KeyStore) null);
        final X509TrustManager a = (X509TrustManager) extra.getTrustManagers()[0];
        final X509TrustManager b = (X509TrustManager) system.getTrustManagers()[0];
        X509TrustManager either = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws java.security.cert.CertificateException {
                throw new java.security.cert.CertificateException("no client certificates here");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws java.security.cert.CertificateException {
                try {
                    a.checkServerTrusted(chain, authType);
                } catch (java.security.cert.CertificateException e) {
                    b.checkServerTrusted(chain, authType);
                }
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return b.getAcceptedIssuers();
            }
        };
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {either}, null);
        return new TlsConfig(context.getSocketFactory(), new HostnameCheck());
    }
}
