package dev.voicegateway.core.adb;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;

/**
 * The app's own ADB identity: an RSA-2048 key and a self-signed certificate (C=US, O=Android, CN=Adb,
 * as AOSP's adb makes in crypto/x509_generator.cpp). The pairing sends its public key to adbd, which
 * stores it (data/misc/adb/adb_keys); the transport's TLS then presents the certificate and adbd
 * admits it by that key (AOSP daemon/auth.cpp, adbd_tls_verify_cert).
 *
 * <p>Kept as two files readable by the owner alone (0600): whoever holds the key can run anything as
 * the shell on this phone. Its bytes are never logged; {@link #toString()} names the fingerprint only.
 */
public final class AdbKey {
    static final String KEY_FILE = "adb-key.pk8";
    static final String CERT_FILE = "adb-cert.der";
    private static final Charset ASCII = Charset.forName("US-ASCII");

    private final PrivateKey privateKey;
    private final X509Certificate certificate;

    private AdbKey(PrivateKey privateKey, X509Certificate certificate) {
        this.privateKey = privateKey;
        this.certificate = certificate;
    }

    public PrivateKey privateKey() {
        return privateKey;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public RSAPublicKey publicKey() {
        return (RSAPublicKey) certificate.getPublicKey();
    }

    /** A fresh key and certificate (valid from yesterday for 30 years: a phone's clock may be off). */
    public static AdbKey generate(SecureRandom random) throws GeneralSecurityException {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(new RSAKeyGenParameterSpec(2048, RSAKeyGenParameterSpec.F4), random);
        KeyPair pair = gen.generateKeyPair();
        byte[] der = selfSigned(pair, random, System.currentTimeMillis());
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        return new AdbKey(pair.getPrivate(), (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der)));
    }

    /** The key in {@code dir}, made and stored (0600) on first use. */
    public static AdbKey loadOrCreate(File dir, SecureRandom random) throws IOException, GeneralSecurityException {
        AdbKey existing = load(dir);
        if (existing != null) return existing;
        AdbKey fresh = generate(random);
        fresh.save(dir);
        return fresh;
    }

    /** The key stored in {@code dir}, or null when there is none. */
    public static AdbKey load(File dir) throws IOException, GeneralSecurityException {
        File keyFile = new File(dir, KEY_FILE);
        File certFile = new File(dir, CERT_FILE);
        if (!keyFile.isFile() || !certFile.isFile()) return null;
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(read(keyFile)));
        X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(read(certFile)));
        return new AdbKey(key, cert);
    }

    /** Writes both files readable and writable by the owner alone, each through a temporary file. */
    public void save(File dir) throws IOException, GeneralSecurityException {
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);
        writePrivate(new File(dir, CERT_FILE), certificate.getEncoded());
        writePrivate(new File(dir, KEY_FILE), privateKey.getEncoded());
    }

    private static void writePrivate(File file, byte[] data) throws IOException {
        File tmp = new File(file.getPath() + ".tmp");
        if (tmp.exists() && !tmp.delete()) throw new IOException("cannot replace " + tmp);
        if (!tmp.createNewFile()) throw new IOException("cannot create " + tmp);
        // Owner only before a byte is written: 0600 (java.io.File, as API 23 lacks java.nio.file).
        boolean ok = tmp.setReadable(false, false) && tmp.setWritable(false, false) && tmp.setExecutable(false, false)
                && tmp.setReadable(true, true) && tmp.setWritable(true, true);
        if (!ok) throw new IOException("cannot restrict " + tmp + " to its owner");
        FileOutputStream out = new FileOutputStream(tmp);
        try {
            out.write(data);
            out.getFD().sync();
        } finally {
            out.close();
        }
        if (!tmp.renameTo(file)) throw new IOException("cannot move " + tmp + " to " + file);
    }

    private static byte[] read(File f) throws IOException {
        InputStream in = new FileInputStream(f);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
            return out.toByteArray();
        } finally {
            in.close();
        }
    }

    /**
     * The public key as adb writes it into adb_keys and sends it in the pairing's peer info: base64 of
     * AOSP's RSAPublicKey structure (libcrypto_utils/android_pubkey.cpp: modulus size in words, n0inv,
     * modulus and R^2 mod n little-endian, exponent), a space, then a name.
     */
    public String adbPublicKey(String name) {
        BigInteger n = publicKey().getModulus();
        BigInteger twoTo32 = BigInteger.ONE.shiftLeft(32);
        long n0inv = twoTo32.subtract(n.mod(twoTo32).modInverse(twoTo32)).longValue();
        BigInteger rr = BigInteger.ONE.shiftLeft(2 * 2048).mod(n);
        ByteBuffer b = ByteBuffer.allocate(4 + 4 + 256 + 256 + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(64);
        b.putInt((int) n0inv);
        b.put(Ed25519Point.toLittleEndian(n, 256));
        b.put(Ed25519Point.toLittleEndian(rr, 256));
        b.putInt(publicKey().getPublicExponent().intValue());
        return dev.voicegateway.core.Base64.encode(b.array()) + " " + name;
    }

    /** SHA-256 of the public key's encoding, in hex: names the key in logs and the console. */
    public String fingerprint() {
        try {
            return Hex.encode(java.security.MessageDigest.getInstance("SHA-256").digest(publicKey().getEncoded())).substring(0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "AdbKey(" + fingerprint() + ")";
    }

    static byte[] selfSigned(KeyPair pair, SecureRandom random, long nowMillis) throws GeneralSecurityException {
        byte[] sha256WithRsa = Der.sequence(Der.oid("2a864886f70d01010b"), Der.nul());
        byte[] name = Der.sequence(
                Der.set(Der.sequence(Der.oid("550406"), Der.printable("US"))),
                Der.set(Der.sequence(Der.oid("55040a"), Der.utf8("Android"))),
                Der.set(Der.sequence(Der.oid("550403"), Der.utf8("Adb"))));
        SimpleDateFormat fmt = new SimpleDateFormat("yyyyMMddHHmmss", Locale.US);
        fmt.setTimeZone(TimeZone.getTimeZone("UTC"));
        long day = 24L * 3600 * 1000;
        byte[] validity = Der.sequence(Der.time(fmt.format(new Date(nowMillis - day))),
                Der.time(fmt.format(new Date(nowMillis + 30L * 365 * day))));
        byte[] serial = new byte[8];
        random.nextBytes(serial);
        serial[0] &= 0x7f;
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.valueOf(2))),
                Der.integer(new BigInteger(1, serial).add(BigInteger.ONE)),
                sha256WithRsa, name, validity, name,
                pair.getPublic().getEncoded());
        Signature signer = Signature.getInstance("SHA256withRSA");
        signer.initSign(pair.getPrivate());
        signer.update(tbs);
        return Der.sequence(tbs, sha256WithRsa, Der.bitString(signer.sign()));
    }

    static byte[] ascii(String s) {
        return s.getBytes(ASCII);
    }
}
