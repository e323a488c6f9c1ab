package dev.voicegateway.core.adb;

import java.math.BigInteger;

/**
 * A point of the twisted Edwards curve edwards25519 (-x^2 + y^2 = 1 + d x^2 y^2 over 2^255 - 19), in
 * extended coordinates, with exactly the operations SPAKE2 needs: decode, encode, add, negate and
 * multiply by a non-negative scalar.
 *
 * <p>Why our own: the app needs SPAKE2 over this curve (ADB's pairing, see {@link Spake2}) and no
 * library on the platform or in this build offers it; BouncyCastle keeps its Edwards arithmetic
 * private. The arithmetic is on {@link BigInteger}, so it is not constant-time: acceptable here
 * because the only secrets are a one-time pairing exchange on the phone itself (docs/android.md,
 * "ADB pairing on the phone").
 *
 * <p>Decoding follows BoringSSL's {@code x25519_ge_frombytes_vartime} (crypto/curve25519): bit 255 is
 * the sign of x, a y at or above p is taken modulo p, and an encoding with no x on the curve is
 * refused.
 */
public final class Ed25519Point {
    static final BigInteger P = BigInteger.ONE.shiftLeft(255).subtract(BigInteger.valueOf(19));
    /** The order of the prime subgroup: 2^252 + 27742317777372353535851937790883648493. */
    public static final BigInteger ORDER = BigInteger.ONE.shiftLeft(252)
            .add(new BigInteger("27742317777372353535851937790883648493"));
    static final BigInteger D = BigInteger.valueOf(-121665).mod(P)
            .multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);
    private static final BigInteger D2 = D.shiftLeft(1).mod(P);
    private static final BigInteger SQRT_M1 = BigInteger.valueOf(2).modPow(P.subtract(BigInteger.ONE).shiftRight(2), P);
    private static final BigInteger TWO = BigInteger.valueOf(2);

    public static final Ed25519Point IDENTITY = new Ed25519Point(BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE, BigInteger.ZERO);
    /** The base point B (y = 4/5, x even). */
    public static final Ed25519Point BASE = decode(Hex.decode("5866666666666666666666666666666666666666666666666666666666666666"));

    private final BigInteger x;
    private final BigInteger y;
    private final BigInteger z;
    private final BigInteger t;

    private Ed25519Point(BigInteger x, BigInteger y, BigInteger z, BigInteger t) {
        this.x = x;
        this.y = y;
        this.z = z;
        this.t = t;
    }

    /** The point a 32-byte encoding names, or null when no point of the curve has it. */
    public static Ed25519Point decode(byte[] encoded) {
        if (encoded == null || encoded.length != 32) return null;
        byte[] le = encoded.clone();
        int sign = (le[31] >> 7) & 1;
        le[31] &= 0x7f;
        BigInteger y = littleEndian(le).mod(P);
        BigInteger yy = y.multiply(y).mod(P);
        BigInteger u = yy.subtract(BigInteger.ONE).mod(P);
        BigInteger v = D.multiply(yy).add(BigInteger.ONE).mod(P);
        // x = sqrt(u / v) = u v^3 (u v^7)^((p - 5) / 8), then fixed by sqrt(-1) when it squares to -u/v.
        BigInteger v3 = v.multiply(v).mod(P).multiply(v).mod(P);
        BigInteger v7 = v3.multiply(v3).mod(P).multiply(v).mod(P);
        BigInteger x = u.multiply(v3).mod(P)
                .multiply(u.multiply(v7).mod(P).modPow(P.subtract(BigInteger.valueOf(5)).shiftRight(3), P)).mod(P);
        BigInteger check = v.multiply(x).mod(P).multiply(x).mod(P);
        if (!check.equals(u)) {
            if (!check.equals(u.negate().mod(P))) return null;
            x = x.multiply(SQRT_M1).mod(P);
        }
        if (x.testBit(0) != (sign == 1)) x = x.negate().mod(P);
        return new Ed25519Point(x, y, BigInteger.ONE, x.multiply(y).mod(P));
    }

    /** The 32-byte encoding: y little-endian, the parity of x in bit 255. */
    public byte[] encode() {
        BigInteger zInv = z.modInverse(P);
        BigInteger ax = x.multiply(zInv).mod(P);
        BigInteger ay = y.multiply(zInv).mod(P);
        byte[] out = toLittleEndian(ay, 32);
        if (ax.testBit(0)) out[31] |= (byte) 0x80;
        return out;
    }

    /** this + other, by the unified formulas for a = -1 (complete on this curve: d is not a square). */
    public Ed25519Point add(Ed25519Point o) {
        BigInteger a = y.subtract(x).multiply(o.y.subtract(o.x)).mod(P);
        BigInteger b = y.add(x).multiply(o.y.add(o.x)).mod(P);
        BigInteger c = t.multiply(D2).mod(P).multiply(o.t).mod(P);
        BigInteger d = z.multiply(TWO).multiply(o.z).mod(P);
        BigInteger e = b.subtract(a);
        BigInteger f = d.subtract(c);
        BigInteger g = d.add(c);
        BigInteger h = b.add(a);
        return new Ed25519Point(e.multiply(f).mod(P), g.multiply(h).mod(P), f.multiply(g).mod(P), e.multiply(h).mod(P));
    }

    public Ed25519Point negate() {
        return new Ed25519Point(x.negate().mod(P), y, z, t.negate().mod(P));
    }

    /** scalar · this, for any scalar >= 0 (not reduced: the points SPAKE2 uses need not lie in the prime subgroup). */
    public Ed25519Point multiply(BigInteger scalar) {
        if (scalar.signum() < 0) throw new IllegalArgumentException("negative scalar");
        Ed25519Point r = IDENTITY;
        for (int i = scalar.bitLength() - 1; i >= 0; i--) {
            r = r.add(r);
            if (scalar.testBit(i)) r = r.add(this);
        }
        return r;
    }

    /** Same point, whatever the projective representation. */
    public boolean sameAs(Ed25519Point o) {
        return x.multiply(o.z).subtract(o.x.multiply(z)).mod(P).signum() == 0
                && y.multiply(o.z).subtract(o.y.multiply(z)).mod(P).signum() == 0;
    }

    static BigInteger littleEndian(byte[] le) {
        byte[] be = new byte[le.length + 1];
        for (int i = 0; i < le.length; i++) be[le.length - i] = le[i];
        return new BigInteger(be);
    }

    static byte[] toLittleEndian(BigInteger n, int length) {
        byte[] be = n.toByteArray();
        byte[] out = new byte[length];
        for (int i = 0; i < length && i < be.length; i++) out[i] = be[be.length - 1 - i];
        return out;
    }
}
