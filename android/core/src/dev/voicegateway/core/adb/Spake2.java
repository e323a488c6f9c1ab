package dev.voicegateway.core.adb;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * SPAKE2 over edwards25519 exactly as BoringSSL's {@code crypto/curve25519/spake25519.c} computes it,
 * which is what ADB's pairing uses (AOSP packages/modules/adb/pairing_auth/pairing_auth.cpp creates
 * the context with the names "adb pair client\0" and "adb pair server\0"; the client is Alice).
 *
 * <p>One instance runs one exchange: {@link #generateMessage} once, then {@link #processMessage} once.
 * What BoringSSL does, and so what this does:
 * <ul>
 * <li>private key: 64 random bytes reduced modulo the group order, times 8 (so the peer's point loses
 *   any small-order part when multiplied);</li>
 * <li>password scalar: SHA-512(password) reduced modulo the order, then, as BoringSSL does to repair an
 *   old omission of the cofactor without changing keys, order, 2·order and 4·order added as its low
 *   three bits ask so that it becomes a multiple of 8;</li>
 * <li>message: private·B + passwordScalar·M (Alice) or ·N (Bob), encoded in 32 bytes;</li>
 * <li>key: SHA-512 over Alice's name, Bob's name, Alice's message, Bob's message, the shared point's
 *   encoding and the full SHA-512 of the password, each preceded by its length as 8 bytes
 *   little-endian.</li>
 * </ul>
 * A wrong password gives different keys on both sides, not an error: ADB's pairing notices it when the
 * peer's AES-GCM message fails to decrypt.
 */
public final class Spake2 {
    public static final byte[] ADB_CLIENT_NAME = nulTerminated("adb pair client");
    public static final byte[] ADB_SERVER_NAME = nulTerminated("adb pair server");

    /** BoringSSL's M and N: the first SHA-256 chain values of their seeds that decode as points. */
    static final String SEED_M = "edwards25519 point generation seed (M)";
    static final String SEED_N = "edwards25519 point generation seed (N)";
    static final Ed25519Point M = Ed25519Point.decode(Hex.decode("5ada7e4bf6ddd9adb6626d32131c6b5c51a1e347a3478f53cfcf441b88eed12e"));
    static final Ed25519Point N = Ed25519Point.decode(Hex.decode("10e3df0ae37d8e7a99b5fe74b44672103dbddcbd06af680d71329a11693bc778"));

    public enum Role { ALICE, BOB }

    private final Role role;
    private final byte[] myName;
    private final byte[] theirName;
    private final SecureRandom random;
    private BigInteger privateKey;
    private BigInteger passwordScalar;
    private byte[] passwordHash;
    private byte[] myMessage;
    private boolean done;

    public Spake2(Role role, byte[] myName, byte[] theirName, SecureRandom random) {
        this.role = role;
        this.myName = myName.clone();
        this.theirName = theirName.clone();
        this.random = random;
    }

    /** ADB's pairing client (Alice, "adb pair client\0" talking to "adb pair server\0"). */
    public static Spake2 adbClient(SecureRandom random) {
        return new Spake2(Role.ALICE, ADB_CLIENT_NAME, ADB_SERVER_NAME, random);
    }

    /** ADB's pairing server (Bob): what the phone's adbd is; here for tests and symmetry. */
    public static Spake2 adbServer(SecureRandom random) {
        return new Spake2(Role.BOB, ADB_SERVER_NAME, ADB_CLIENT_NAME, random);
    }

    /** Our 32-byte message for this password. */
    public byte[] generateMessage(byte[] password) {
        if (myMessage != null) throw new IllegalStateException("SPAKE2 message already generated");
        byte[] seed = new byte[64];
        random.nextBytes(seed);
        privateKey = Ed25519Point.littleEndian(seed).mod(Ed25519Point.ORDER).shiftLeft(3);
        java.util.Arrays.fill(seed, (byte) 0);

        passwordHash = sha512(password);
        passwordScalar = cofactorRepair(Ed25519Point.littleEndian(passwordHash).mod(Ed25519Point.ORDER));

        Ed25519Point mask = (role == Role.ALICE ? M : N).multiply(passwordScalar);
        myMessage = Ed25519Point.BASE.multiply(privateKey).add(mask).encode();
        return myMessage.clone();
    }

    /**
     * The 64-byte key from the peer's message; throws {@link IllegalArgumentException} when the message
     * is not a point of the curve (BoringSSL refuses it too).
     */
    public byte[] processMessage(byte[] theirMessage) {
        if (myMessage == null || done) throw new IllegalStateException("SPAKE2: generate our message first, and process once");
        if (theirMessage == null || theirMessage.length != 32) throw new IllegalArgumentException("SPAKE2 message must be 32 bytes");
        Ed25519Point qStar = Ed25519Point.decode(theirMessage);
        if (qStar == null) throw new IllegalArgumentException("SPAKE2 message is not a point of the curve");
        done = true;
        Ed25519Point peersMask = (role == Role.ALICE ? N : M).multiply(passwordScalar);
        byte[] shared = qStar.add(peersMask.negate()).multiply(privateKey).encode();

        MessageDigest sha = sha512Digest();
        if (role == Role.ALICE) {
            withLength(sha, myName);
            withLength(sha, theirName);
            withLength(sha, myMessage);
            withLength(sha, theirMessage);
        } else {
            withLength(sha, theirName);
            withLength(sha, myName);
            withLength(sha, theirMessage);
            withLength(sha, myMessage);
        }
        withLength(sha, shared);
        withLength(sha, passwordHash);
        privateKey = null;
        return sha.digest();
    }

    /** BoringSSL's repair: add order, 2·order, 4·order as bits 0, 1, 2 ask, so the scalar is ≡ 0 mod 8. */
    static BigInteger cofactorRepair(BigInteger s) {
        BigInteger order = Ed25519Point.ORDER;
        if (s.testBit(0)) s = s.add(order);
        if (s.testBit(1)) s = s.add(order.shiftLeft(1));
        if (s.testBit(2)) s = s.add(order.shiftLeft(2));
        return s;
    }

    private static void withLength(MessageDigest sha, byte[] data) {
        sha.update(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(data.length).array());
        sha.update(data);
    }

    private static byte[] nulTerminated(String s) {
        byte[] ascii = s.getBytes(java.nio.charset.Charset.forName("US-ASCII"));
        byte[] out = new byte[ascii.length + 1];
        System.arraycopy(ascii, 0, out, 0, ascii.length);
        return out;
    }

    static byte[] sha512(byte[] data) {
        return sha512Digest().digest(data);
    }

    private static MessageDigest sha512Digest() {
        try {
            return MessageDigest.getInstance("SHA-512");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-512 is missing", e);
        }
    }
}
