package dev.voicegateway.core.helper;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.voicegateway.core.audio.AudioCapabilities;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import org.junit.Test;

/** The framing between the app and the audio helper, against bytes written out by hand. */
public class HelperCodecTest {
    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) b[i] = (byte) values[i];
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.write(p, 0, p.length);
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static void roundTrip(HelperMessage m, byte[] expected) throws IOException {
        assertArrayEquals(m.toString(), expected, HelperCodec.encode(m));
        assertEquals(m, HelperCodec.read(new ByteArrayInputStream(expected)));
    }

    @Test
    public void helloCarriesTheMagicAndTheVersion() throws IOException {
        roundTrip(HelperMessage.hello(1), bytes(0x01, 0x00, 0x05, 'V', 'G', 'A', 'H', 0x01));
        assertEquals(1, HelperCodec.VERSION);
    }

    @Test
    public void capabilitiesCarryTheHealthFieldsAndTheNote() throws IOException {
        AudioCapabilities listenOnly = new AudioCapabilities(true, false, AudioCapabilities.VOICE_DOWNLINK, 48000);
        byte[] expected = concat(bytes(0x02, 0x00, 32, 1, 0, 0x00, 0x00, 0xbb, 0x80, 14), ascii("voice_downlink"), ascii("listen only"));
        roundTrip(HelperMessage.capabilities(listenOnly, "listen only"), expected);

        AudioCapabilities both = new AudioCapabilities(true, true, AudioCapabilities.CALL_INTERCEPTION, 16000);
        roundTrip(HelperMessage.capabilities(both, ""), concat(bytes(0x02, 0x00, 24, 1, 1, 0, 0, 0x3e, 0x80, 17), ascii("call_interception")));
    }

    @Test
    public void statusFlagsAndProblem() throws IOException {
        roundTrip(HelperMessage.status(true, false, ""), bytes(0x03, 0x00, 0x01, 0x01));
        roundTrip(HelperMessage.status(true, true, ""), bytes(0x03, 0x00, 0x01, 0x03));
        roundTrip(HelperMessage.status(false, false, "é"), bytes(0x03, 0x00, 0x03, 0x00, 0xc3, 0xa9));
    }

    @Test
    public void controlMessagesHaveNoPayload() throws IOException {
        roundTrip(HelperMessage.of(HelperMessage.START_CAPTURE), bytes(0x10, 0, 0));
        roundTrip(HelperMessage.of(HelperMessage.STOP_CAPTURE), bytes(0x11, 0, 0));
        roundTrip(HelperMessage.of(HelperMessage.START_INJECTION), bytes(0x12, 0, 0));
        roundTrip(HelperMessage.of(HelperMessage.STOP_INJECTION), bytes(0x13, 0, 0));
        roundTrip(HelperMessage.of(HelperMessage.SHUTDOWN), bytes(0x40, 0, 0));
        roundTrip(HelperMessage.of(HelperMessage.REPLACE), bytes(0x41, 0, 0));
    }

    @Test
    public void pingsEchoTheirToken() throws IOException {
        roundTrip(HelperMessage.ping(0x01020304), bytes(0x20, 0x00, 0x04, 1, 2, 3, 4));
        roundTrip(HelperMessage.pong(0xfffffffe), bytes(0x21, 0x00, 0x04, 0xff, 0xff, 0xff, 0xfe));
    }

    @Test
    public void audioIsOneWholeFrame() throws IOException {
        byte[] frame = new byte[640];
        for (int i = 0; i < frame.length; i++) frame[i] = (byte) (i * 7);
        roundTrip(HelperMessage.audio(frame), concat(bytes(0x30, 0x02, 0x80), frame));
        try {
            HelperMessage.audio(new byte[320]);
            fail("a half frame is not a frame");
        } catch (IllegalArgumentException expected) {
            // fine
        }
    }

    @Test
    public void errorsCarryTheirReason() throws IOException {
        roundTrip(HelperMessage.error("no"), bytes(0x7f, 0x00, 0x02, 'n', 'o'));
    }

    @Test
    public void aStreamOfMessagesIsReadInOrderSkippingTypesThisVersionDoesNotKnow() throws IOException {
        byte[] stream = concat(HelperCodec.encode(HelperMessage.hello(1)), bytes(0x55, 0x00, 0x03, 9, 9, 9),
                HelperCodec.encode(HelperMessage.ping(7)));
        InputStream in = new ByteArrayInputStream(stream);
        assertEquals(HelperMessage.HELLO, HelperCodec.read(in).type);
        assertEquals(HelperMessage.ping(7), HelperCodec.read(in));
        try {
            HelperCodec.read(in);
            fail("the stream is over");
        } catch (EOFException expected) {
            // fine
        }
    }

    @Test
    public void framingErrorsEndTheConnection() {
        expectFraming(bytes(0x30, 0x10, 0x01), "over the 4096-byte bound");
        expectFraming(concat(bytes(0x30, 0x02, 0x7f), new byte[639]), "AUDIO: a payload of 639 bytes");
        expectFraming(bytes(0x01, 0x00, 0x05, 'H', 'T', 'T', 'P', 1), "no VGAH magic");
        expectFraming(bytes(0x20, 0x00, 0x02, 1, 2), "PING: a payload of 2 bytes");
        expectFraming(bytes(0x10, 0x00, 0x01, 1), "START_CAPTURE: a payload of 1 bytes");
        expectFraming(concat(bytes(0x02, 0x00, 8, 1, 0, 0, 0, 0, 0, 40), ascii("x")), "the method name runs past the payload");
    }

    @Test
    public void aMessageCutShortIsTheEndOfTheStream() {
        try {
            HelperCodec.read(new ByteArrayInputStream(bytes(0x30, 0x02, 0x80, 1, 2, 3)));
            fail("cut short");
        } catch (EOFException expected) {
            // fine
        } catch (IOException e) {
            fail("expected EOFException, got " + e);
        }
    }

    private static void expectFraming(byte[] stream, String message) {
        try {
            HelperCodec.read(new ByteArrayInputStream(stream));
            fail("expected a framing error: " + message);
        } catch (HelperCodec.FramingException e) {
            assertTrue(e.getMessage() + " should say " + message, e.getMessage().contains(message));
        } catch (IOException e) {
            fail("expected a framing error, got " + e);
        }
    }
}
