package dev.voicegateway.jvm;

import dev.voicegateway.core.adb.AdbKey;
import dev.voicegateway.core.adb.AdbTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.SecureRandom;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateEntry;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.DefaultTlsClient;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SignatureAndHashAlgorithm;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsClientProtocol;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsServerCertificate;
import org.bouncycastle.tls.crypto.TlsCertificate;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCrypto;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider;

/**
 * ADB's TLS on the host JVM through BouncyCastle's bctls (Debian's libbctls-java, on the host class
 * path only, never in the APK): the JDK's TLS has no keying-material exporter. bctls exports only
 * while the handshake completes (TlsContext.exportKeyingMaterial inside notifyHandshakeComplete), so
 * the one export ADB asks for, label "adb-label\0" and 64 bytes, is taken there and handed out after.
 */
public final class BcAdbTls implements AdbTls {
    /** The one export ADB pairing makes (AOSP tls/tls_connection.cpp, kExportedKeyLabel). */
    private static final String LABEL = "adb-label\0";
    private static final int LENGTH = 64;

    private static final Provider PROVIDER = new BouncyCastleProvider();

    private final SecureRandom random;

    public BcAdbTls(SecureRandom random) {
        this.random = random;
    }

    @Override
    public Session handshake(Socket socket, final AdbKey key) throws IOException {
        // BouncyCastle's own JCA provider: the JDK's lacks the RSA-PSS names bctls asks for (SHA256withRSAandMGF1).
        final JcaTlsCrypto crypto = (JcaTlsCrypto) new JcaTlsCryptoProvider().setProvider(PROVIDER).create(random);
        final TlsClientProtocol protocol = new TlsClientProtocol(socket.getInputStream(), socket.getOutputStream());
        final byte[][] exported = new byte[1][];
        final TlsCertificate ours;
        try {
            ours = crypto.createCertificate(key.certificate().getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot encode our certificate", e);
        }
        DefaultTlsClient client = new DefaultTlsClient(crypto) {
            @Override
            protected ProtocolVersion[] getSupportedVersions() {
                return ProtocolVersion.TLSv13.only();
            }

            @Override
            public TlsAuthentication getAuthentication() {
                return new TlsAuthentication() {
                    @Override
                    public void notifyServerCertificate(TlsServerCertificate serverCertificate) {
                        // Accepted as it is: see AdbTls for why.
                    }

                    @Override
                    public TlsCredentials getClientCredentials(CertificateRequest request) {
                        Certificate chain = new Certificate(request.getCertificateRequestContext(),
                                new CertificateEntry[] {new CertificateEntry(ours, null)});
                        // TLS 1.3 signs with RSA-PSS (RFC 8446 section 4.2.3).
                        return new JcaDefaultTlsCredentialedSigner(new TlsCryptoParameters(context), crypto,
                                key.privateKey(), chain, SignatureAndHashAlgorithm.rsa_pss_rsae_sha256);
                    }
                };
            }

            @Override
            public void notifyHandshakeComplete() throws IOException {
                super.notifyHandshakeComplete();
                exported[0] = context.exportKeyingMaterial(LABEL, null, LENGTH);
            }
        };
        protocol.connect(client);
        return new Session() {
            @Override
            public InputStream input() {
                return protocol.getInputStream();
            }

            @Override
            public OutputStream output() {
                return protocol.getOutputStream();
            }

            @Override
            public byte[] exportKeyingMaterial(byte[] label, int length) throws IOException {
                if (!LABEL.equals(new String(label, Charset.forName("US-ASCII"))) || length != LENGTH || exported[0] == null) {
                    throw new IOException("bctls exports only during the handshake: only \"adb-label\\0\", 64 bytes, is kept");
                }
                return exported[0].clone();
            }

            @Override
            public void close() throws IOException {
                protocol.close();
            }
        };
    }
}
