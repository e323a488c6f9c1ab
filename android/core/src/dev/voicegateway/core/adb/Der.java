package dev.voicegateway.core.adb;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.Charset;

/** The few DER encodings a self-signed X.509 certificate needs (ITU-T X.690). */
final class Der {
    private Der() {}

    static byte[] tlv(int tag, byte[]... parts) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] p : parts) body.write(p, 0, p.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int n = body.size();
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n & 0xff);
        } else {
            out.write(0x83);
            out.write(n >> 16);
            out.write((n >> 8) & 0xff);
            out.write(n & 0xff);
        }
        byte[] b = body.toByteArray();
        out.write(b, 0, b.length);
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... parts) {
        return tlv(0x30, parts);
    }

    static byte[] set(byte[]... parts) {
        return tlv(0x31, parts);
    }

    static byte[] integer(BigInteger n) {
        return tlv(0x02, n.toByteArray());
    }

    static byte[] bitString(byte[] bits) {
        byte[] body = new byte[bits.length + 1];
        System.arraycopy(bits, 0, body, 1, bits.length);
        return tlv(0x03, body);
    }

    static byte[] nul() {
        return new byte[] {0x05, 0x00};
    }

    static byte[] oid(String hex) {
        return tlv(0x06, Hex.decode(hex));
    }

    static byte[] printable(String s) {
        return tlv(0x13, s.getBytes(Charset.forName("US-ASCII")));
    }

    static byte[] utf8(String s) {
        return tlv(0x0c, s.getBytes(Charset.forName("UTF-8")));
    }

    /** GeneralizedTime, YYYYMMDDHHMMSSZ (valid for any year, unlike UTCTime). */
    static byte[] time(String yyyymmddhhmmss) {
        return tlv(0x18, (yyyymmddhhmmss + "Z").getBytes(Charset.forName("US-ASCII")));
    }

    static byte[] explicit(int n, byte[] inner) {
        return tlv(0xa0 | n, inner);
    }
}
