package dev.voicegateway.core.adb;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-128-GCM as AOSP's pairing_auth/aes_128_gcm.cpp uses it: the key is HKDF-SHA256 (RFC 5869) of
 * the SPAKE2 key with no salt and the info "adb pairing_auth aes-128-gcm key"; each direction counts
 * its messages from 0 and the nonce is that counter, 8 bytes little-endian, then 4 zero bytes; the
 * tag is 16 bytes appended.
 */
final class PairingCipher {
    private static final byte[] INFO = "adb pairing_auth aes-128-gcm key".getBytes(Charset.forName("US-ASCII"));
    private final SecretKeySpec key;
    private long encryptSequence;
    private long decryptSequence;

    PairingCipher(byte[] keyMaterial) {
        this.key = new SecretKeySpec(hkdfSha256(keyMaterial, INFO, 16), "AES");
    }

    byte[] encrypt(byte[] plain) throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce(encryptSequence)));
        byte[] out = c.doFinal(plain);
        encryptSequence++;
        return out;
    }

    byte[] decrypt(byte[] sealed) throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, nonce(decryptSequence)));
        byte[] out = c.doFinal(sealed);
        decryptSequence++;
        return out;
    }

    private static byte[] nonce(long sequence) {
        return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putLong(sequence).array();
    }

    /** HKDF-SHA256 with an empty salt (RFC 5869: a salt of HashLen zero bytes). */
    static byte[] hkdfSha256(byte[] ikm, byte[] info, int length) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(new byte[32], "HmacSHA256"));
            byte[] prk = mac.doFinal(ikm);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            byte[] out = new byte[length];
            byte[] t = new byte[0];
            int done = 0;
            for (int i = 1; done < length; i++) {
                mac.update(t);
                mac.update(info);
                mac.update((byte) i);
                t = mac.doFinal();
                int n = Math.min(t.length, length - done);
                System.arraycopy(t, 0, out, done, n);
                done += n;
            }
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing", e);
        }
    }
}
