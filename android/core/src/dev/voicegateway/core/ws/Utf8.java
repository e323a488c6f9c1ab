package dev.voicegateway.core.ws;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;

/** Strict UTF-8: a text message that is not valid UTF-8 closes the socket with 1007 (RFC 6455 8.1). */
final class Utf8 {
    private static final Charset UTF8 = Charset.forName("UTF-8");

    private Utf8() {
    }

    static byte[] encode(String text) {
        return text.getBytes(UTF8);
    }

    static String decode(byte[] bytes) throws WebSocketException {
        try {
            return UTF8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new WebSocketException(WebSocketException.INVALID_DATA, "text message is not valid UTF-8");
        }
    }
}
