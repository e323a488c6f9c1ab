package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.Test;

/** Base64 (RFC 4648 section 10 vectors) and ISO 8601 timestamps. */
public class EncodingTest {
    private static String b64(String s) {
        return Base64.encode(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    public void base64MatchesTheRfcVectors() {
        assertEquals("", b64(""));
        assertEquals("Zg==", b64("f"));
        assertEquals("Zm8=", b64("fo"));
        assertEquals("Zm9v", b64("foo"));
        assertEquals("Zm9vYg==", b64("foob"));
        assertEquals("Zm9vYmE=", b64("fooba"));
        assertEquals("Zm9vYmFy", b64("foobar"));
    }

    @Test
    public void base64OfHighBytesMatchesTheJdk() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) all[i] = (byte) i;
        assertEquals(java.util.Base64.getEncoder().encodeToString(all), Base64.encode(all));
    }

    @Test
    public void isoTimestampsAreUtcWithMilliseconds() {
        assertEquals("1970-01-01T00:00:00.000Z", Iso8601.format(0));
        assertEquals("2026-11-22T14:56:56.123Z", Iso8601.format(1795359416123L));
        assertEquals("2024-02-29T23:59:59.999Z", Iso8601.format(1709251199999L));
    }
}
