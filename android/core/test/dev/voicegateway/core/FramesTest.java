package dev.voicegateway.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.voicegateway.core.ws.Frames;
import dev.voicegateway.core.ws.WebSocketException;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

/** RFC 6455 framing: the examples of section 5.7, the length forms, and every frame a server may not send. */
public class FramesTest {
    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) out[i] = (byte) b[i];
        return out;
    }

    private static Frames.Frame read(byte[] wire, int max) throws IOException {
        return new Frames.Reader(new ByteArrayInputStream(wire), max).next();
    }

    /** Undoes the client's masking, as a server would. */
    private static byte[] unmask(byte[] frame, int headerLength, int length) {
        byte[] mask = new byte[] {frame[headerLength - 4], frame[headerLength - 3], frame[headerLength - 2], frame[headerLength - 1]};
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) out[i] = (byte) (frame[headerLength + i] ^ mask[i & 3]);
        return out;
    }

    @Test
    public void encodesTheRfcMaskedHello() {
        byte[] hello = "Hello".getBytes(StandardCharsets.US_ASCII);
        byte[] wire = Frames.encode(Frames.TEXT, hello, 0, hello.length, bytes(0x37, 0xfa, 0x21, 0x3d));
        assertArrayEquals(bytes(0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58), wire);
    }

    @Test
    public void readsTheRfcUnmaskedHelloAndAPong() throws IOException {
        Frames.Frame f = read(bytes(0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f), 1024);
        assertTrue(f.fin);
        assertEquals(Frames.TEXT, f.opcode);
        assertEquals("Hello", new String(f.payload, StandardCharsets.US_ASCII));
        Frames.Frame pong = read(bytes(0x8a, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f), 1024);
        assertEquals(Frames.PONG, pong.opcode);
        assertTrue(pong.isControl());
    }

    @Test
    public void readsAFragmentedTextMessageFrameByFrame() throws IOException {
        Frames.Reader r = new Frames.Reader(new ByteArrayInputStream(bytes(0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f)), 1024);
        Frames.Frame first = r.next();
        Frames.Frame last = r.next();
        assertFalse(first.fin);
        assertEquals(Frames.TEXT, first.opcode);
        assertTrue(last.fin);
        assertEquals(Frames.CONTINUATION, last.opcode);
    }

    @Test
    public void usesTheThreeLengthFormsAndRoundTrips() throws IOException {
        int[] sizes = {0, 125, 126, 640, 65535, 65536, 70000};
        for (int size : sizes) {
            byte[] payload = new byte[size];
            for (int i = 0; i < size; i++) payload[i] = (byte) (i * 7);
            byte[] wire = Frames.encode(Frames.BINARY, payload, 0, size, bytes(1, 2, 3, 4));
            int header = size < 126 ? 6 : size < 65536 ? 8 : 14;
            assertEquals("frame length for " + size, header + size, wire.length);
            assertEquals(0x80 | (size < 126 ? size : size < 65536 ? 126 : 127), wire[1] & 0xff);
            assertArrayEquals("payload of " + size, payload, unmask(wire, header, size));
            // The same bytes unmasked are a valid server frame of the same payload.
            byte[] server = new byte[header - 4 + size];
            System.arraycopy(wire, 0, server, 0, header - 4);
            server[1] &= 0x7f;
            System.arraycopy(payload, 0, server, header - 4, size);
            assertArrayEquals(payload, read(server, 1 << 20).payload);
        }
    }

    @Test
    public void encodesAPartOfABuffer() {
        byte[] buf = "xxHelloxx".getBytes(StandardCharsets.US_ASCII);
        byte[] wire = Frames.encode(Frames.TEXT, buf, 2, 5, bytes(0x37, 0xfa, 0x21, 0x3d));
        assertArrayEquals(bytes(0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58), wire);
    }

    @Test
    public void closePayloadCarriesCodeAndAShortReason() {
        byte[] p = Frames.closePayload(4001, "revoked");
        assertEquals(0x0f, p[0] & 0xff);
        assertEquals(0xa1, p[1] & 0xff);
        assertEquals("revoked", new String(p, 2, p.length - 2, StandardCharsets.UTF_8));
        StringBuilder longReason = new StringBuilder();
        for (int i = 0; i < 200; i++) longReason.append('r');
        assertEquals(2 + 123, Frames.closePayload(1000, longReason.toString()).length);
    }

    private static void refused(byte[] wire, int max, int code) throws IOException {
        try {
            read(wire, max);
            fail("frame accepted");
        } catch (WebSocketException e) {
            assertEquals(e.getMessage(), code, e.closeCode);
        }
    }

    @Test
    public void refusesWhatAServerMustNotSend() throws IOException {
        refused(bytes(0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0), 1024, WebSocketException.PROTOCOL_ERROR); // masked
        refused(bytes(0xc1, 0x00), 1024, WebSocketException.PROTOCOL_ERROR); // RSV1 without an extension
        refused(bytes(0x83, 0x00), 1024, WebSocketException.PROTOCOL_ERROR); // opcode 3 is reserved
        refused(bytes(0x09, 0x00), 1024, WebSocketException.PROTOCOL_ERROR); // fragmented ping
        byte[] bigPing = new byte[4 + 126];
        bigPing[0] = (byte) 0x89;
        bigPing[1] = 126;
        bigPing[3] = 126;
        refused(bigPing, 1024, WebSocketException.PROTOCOL_ERROR); // control frame over 125 bytes
        refused(bytes(0x82, 0x7e, 0x04, 0x01), 1024, WebSocketException.TOO_BIG); // 1025 bytes, limit 1024
        refused(bytes(0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0), 1024, WebSocketException.PROTOCOL_ERROR); // negative length
    }

    @Test(expected = EOFException.class)
    public void aConnectionClosedInsideAFrameIsAnEof() throws IOException {
        read(bytes(0x82, 0x05, 1, 2), 1024);
    }
}
