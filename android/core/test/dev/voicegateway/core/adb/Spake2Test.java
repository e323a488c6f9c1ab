package dev.voicegateway.core.adb;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import org.junit.Test;

/**
 * Our SPAKE2 on its own. That it is BoringSSL's, byte for byte, is shown against BoringSSL itself in
 * test/android/adb-spake2.test.ts; here: the constants, the arithmetic and the protocol's rules.
 */
public class Spake2Test {
    private static final byte[] PASSWORD = "123456 and 64 bytes of exported keying material".getBytes();

    /** M and N are BoringSSL's: the first SHA-256 chain value of each seed that decodes as a point. */
    @Test
    public void maskPointsComeFromTheirSeeds() throws Exception {
        assertArrayEquals(Spake2.M.encode(), firstPoint(Spake2.SEED_M));
        assertArrayEquals(Spake2.N.encode(), firstPoint(Spake2.SEED_N));
    }

    private static byte[] firstPoint(String seed) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] v = sha.digest(seed.getBytes("US-ASCII"));
        for (int i = 0; i < 1000; i++) {
            if (Ed25519Point.decode(v) != null) return v;
            v = sha.digest(v);
        }
        throw new AssertionError("no point");
    }

    @Test
    public void groupArithmeticHolds() {
        Ed25519Point b = Ed25519Point.BASE;
        assertTrue(b.multiply(Ed25519Point.ORDER).sameAs(Ed25519Point.IDENTITY));
        assertTrue(b.multiply(BigInteger.valueOf(5)).sameAs(b.add(b).add(b).add(b).add(b)));
        assertTrue(b.add(b.negate()).sameAs(Ed25519Point.IDENTITY));
        assertArrayEquals(b.encode(), Ed25519Point.decode(b.encode()).encode());
        // 2B, the well-known encoding (RFC 8032's test keys start from B; this is its double).
        assertEquals("c9a3f86aae465f0e56513864510f3997561fa2c9e85ea21dc2292309f3cd6022", Hex.encode(b.add(b).encode()));
        // M is not in the prime subgroup: the reason BoringSSL's cofactor repair changes messages, not keys.
        assertFalse(Spake2.M.multiply(Ed25519Point.ORDER).sameAs(Ed25519Point.IDENTITY));
    }

    @Test
    public void cofactorRepairMakesAMultipleOfEightInTheSameClass() {
        for (int i = 0; i < 16; i++) {
            BigInteger s = BigInteger.valueOf(i).add(BigInteger.ONE.shiftLeft(200));
            BigInteger r = Spake2.cofactorRepair(s);
            assertEquals(0, r.mod(BigInteger.valueOf(8)).intValue());
            assertEquals(s.mod(Ed25519Point.ORDER), r.mod(Ed25519Point.ORDER));
        }
    }

    @Test
    public void sameCodeSameKeyWrongCodeDifferentKey() {
        SecureRandom random = new SecureRandom();
        Spake2 client = Spake2.adbClient(random);
        Spake2 server = Spake2.adbServer(random);
        byte[] cm = client.generateMessage(PASSWORD);
        byte[] sm = server.generateMessage(PASSWORD);
        assertEquals(32, cm.length);
        assertNotNull(Ed25519Point.decode(cm));
        byte[] ck = client.processMessage(sm);
        assertEquals(64, ck.length);
        assertArrayEquals(ck, server.processMessage(cm));

        Spake2 c2 = Spake2.adbClient(random);
        Spake2 s2 = Spake2.adbServer(random);
        byte[] wrong = Arrays.copyOf(PASSWORD, PASSWORD.length);
        wrong[0] = '6';
        byte[] cm2 = c2.generateMessage(PASSWORD);
        byte[] sm2 = s2.generateMessage(wrong);
        assertFalse(Arrays.equals(c2.processMessage(sm2), s2.processMessage(cm2)));
    }

    @Test
    public void refusesWhatIsNotAPointAndUseOutOfOrder() {
        Spake2 client = Spake2.adbClient(new SecureRandom());
        try {
            client.processMessage(new byte[32]);
            fail("processed before generating");
        } catch (IllegalStateException expected) {
            // the protocol's order
        }
        client.generateMessage(PASSWORD);
        // y = 2 has no x on the curve ((4 - 1) / (4d + 1) is not a square).
        byte[] offCurve = new byte[32];
        offCurve[0] = 2;
        assertNull(Ed25519Point.decode(offCurve));
        try {
            client.processMessage(offCurve);
            fail("accepted a message off the curve");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("not a point"));
        }
        try {
            client.processMessage(new byte[31]);
            fail("accepted 31 bytes");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("32 bytes"));
        }
    }
}
