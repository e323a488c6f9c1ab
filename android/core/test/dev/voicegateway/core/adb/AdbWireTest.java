package dev.voicegateway.core.adb;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.interfaces.RSAPublicKey;
import org.junit.Test;

/**
 * The pure parts of ADB pairing and transport: the key's formats and storage, the pairing's cipher
 * and packets, the transport's packets. The real peers (AOSP's pairing server, adbd) are in
 * test/android/adb-peers.test.ts.
 */
public class AdbWireTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** RFC 5869 test case 3 (SHA-256, no salt, no info): the HKDF the pairing's AES key comes from. */
    @Test
    public void hkdfMatchesRfc5869() {
        byte[] ikm = new byte[22];
        java.util.Arrays.fill(ikm, (byte) 0x0b);
        assertEquals("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
                Hex.encode(PairingCipher.hkdfSha256(ikm, new byte[0], 42)));
    }

    @Test
    public void pairingCipherCountsNoncesPerDirectionAndRefusesAnotherKey() throws GeneralSecurityException {
        byte[] secret = new byte[64];
        PairingCipher a = new PairingCipher(secret);
        PairingCipher b = new PairingCipher(secret);
        byte[] first = a.encrypt(new byte[8192]);
        assertEquals(8192 + 16, first.length);
        byte[] second = a.encrypt(new byte[8192]);
        assertFalse(java.util.Arrays.equals(first, second));
        assertArrayEquals(new byte[8192], b.decrypt(first));
        assertArrayEquals(new byte[8192], b.decrypt(second));
        secret[0] = 1;
        try {
            new PairingCipher(secret).decrypt(first);
            fail("decrypted under another key");
        } catch (GeneralSecurityException expected) {
            // what a wrong pairing code looks like
        }
    }

    @Test
    public void pairingPacketsAreFramedAsAospDoes() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AdbPairingClient.writePacket(out, AdbPairingClient.TYPE_SPAKE2_MSG, new byte[32]);
        byte[] wire = out.toByteArray();
        assertEquals("010000000020", Hex.encode(java.util.Arrays.copyOf(wire, 6)));
        assertEquals(32, AdbPairingClient.readPacket(new DataInputStream(new ByteArrayInputStream(wire)), 0).length);
        try {
            AdbPairingClient.readPacket(new DataInputStream(new ByteArrayInputStream(wire)), AdbPairingClient.TYPE_PEER_INFO);
            fail("accepted the wrong packet type");
        } catch (IOException expected) {
            assertTrue(expected.getMessage().contains("type"));
        }
        byte[] huge = Hex.decode("0101" + "00010000");
        try {
            AdbPairingClient.readPacket(new DataInputStream(new ByteArrayInputStream(huge)), 1);
            fail("accepted a 64 KiB payload");
        } catch (IOException expected) {
            assertTrue(expected.getMessage().contains("bytes"));
        }
    }

    @Test
    public void transportPacketsRoundTripAndBadMagicIsRefused() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AdbConnection.write(out, AdbConnection.A_OPEN, 1, 0, "shell:id\0".getBytes("UTF-8"));
        byte[] wire = out.toByteArray();
        assertEquals("OPEN", new String(wire, 0, 4, "US-ASCII"));
        AdbConnection.Packet p = AdbConnection.read(new DataInputStream(new ByteArrayInputStream(wire)));
        assertEquals(AdbConnection.A_OPEN, p.command);
        assertEquals(1, p.arg0);
        assertEquals("shell:id\0", new String(p.payload, "UTF-8"));
        wire[20] ^= 1;
        try {
            AdbConnection.read(new DataInputStream(new ByteArrayInputStream(wire)));
            fail("accepted a bad magic");
        } catch (IOException expected) {
            assertTrue(expected.getMessage().contains("magic"));
        }
    }

    @Test
    public void keyIsStoredForItsOwnerOnlyAndReloads() throws Exception {
        File dir = new File(System.getProperty("java.io.tmpdir"), "vg-adbkey-" + System.nanoTime());
        assertNull(AdbKey.load(dir));
        AdbKey key = AdbKey.loadOrCreate(dir, RANDOM);
        for (String name : new String[] {AdbKey.KEY_FILE, AdbKey.CERT_FILE}) {
            File f = new File(dir, name);
            java.util.Set<java.nio.file.attribute.PosixFilePermission> perms = java.nio.file.Files.getPosixFilePermissions(f.toPath());
            assertEquals(name, "rw-------", java.nio.file.attribute.PosixFilePermissions.toString(perms));
        }
        AdbKey again = AdbKey.loadOrCreate(dir, RANDOM);
        assertEquals(key.fingerprint(), again.fingerprint());
        assertArrayEquals(key.privateKey().getEncoded(), again.privateKey().getEncoded());
        assertFalse("the key's text never shows its bytes", key.toString().contains("MII"));
        assertEquals("CN=Adb, O=Android, C=US", key.certificate().getSubjectX500Principal().getName("RFC1779"));
        key.certificate().verify(key.publicKey());
        for (File f : dir.listFiles()) assertTrue(f.delete());
        assertTrue(dir.delete());
    }

    /** adb's public key format (AOSP libcrypto_utils/android_pubkey.cpp), checked field by field. */
    @Test
    public void adbPublicKeyFormat() throws Exception {
        AdbKey key = AdbKey.generate(RANDOM);
        String text = key.adbPublicKey("me@phone");
        assertTrue(text.endsWith(" me@phone"));
        byte[] raw = java.util.Base64.getDecoder().decode(text.substring(0, text.indexOf(' ')));
        assertEquals(524, raw.length);
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(64, b.getInt());
        long n0inv = b.getInt() & 0xffffffffL;
        byte[] modulus = new byte[256];
        b.get(modulus);
        byte[] rr = new byte[256];
        b.get(rr);
        RSAPublicKey pub = key.publicKey();
        BigInteger n = Ed25519Point.littleEndian(modulus);
        assertEquals(pub.getModulus(), n);
        assertEquals(BigInteger.ONE.shiftLeft(4096).mod(n), Ed25519Point.littleEndian(rr));
        assertEquals(65537, b.getInt());
        // n0inv · n[0] ≡ -1 (mod 2^32)
        BigInteger m = BigInteger.ONE.shiftLeft(32);
        assertEquals(m.subtract(BigInteger.ONE), BigInteger.valueOf(n0inv).multiply(n.mod(m)).mod(m));
        assertNotNull(key.fingerprint());
    }
}
