package dev.voicegateway.core.ws;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * RFC 6455 framing, pure: encoding the client's (masked) frames and reading the server's
 * (unmasked) ones. No extensions are negotiated, so every reserved bit must be zero.
 */
public final class Frames {
    public static final int CONTINUATION = 0x0;
    public static final int TEXT = 0x1;
    public static final int BINARY = 0x2;
    public static final int CLOSE = 0x8;
    public static final int PING = 0x9;
    public static final int PONG = 0xA;

    private Frames() {
    }

    /** One final frame of {@code opcode}, masked with {@code mask} (4 bytes), as bytes on the wire. */
    public static byte[] encode(int opcode, byte[] payload, int offset, int length, byte[] mask) {
        int header = 2 + (length < 126 ? 0 : length < 65536 ? 2 : 8) + 4;
        byte[] out = new byte[header + length];
        out[0] = (byte) (0x80 | opcode);
        int i = 2;
        if (length < 126) {
            out[1] = (byte) (0x80 | length);
        } else if (length < 65536) {
            out[1] = (byte) (0x80 | 126);
            out[i++] = (byte) (length >>> 8);
            out[i++] = (byte) length;
        } else {
            out[1] = (byte) (0x80 | 127);
            long len = length;
            for (int shift = 56; shift >= 0; shift -= 8) out[i++] = (byte) (len >>> shift);
        }
        System.arraycopy(mask, 0, out, i, 4);
        i += 4;
        for (int j = 0; j < length; j++) out[i + j] = (byte) (payload[offset + j] ^ mask[j & 3]);
        return out;
    }

    /** The payload of a close frame: the status code and a UTF-8 reason of at most 123 bytes. */
    public static byte[] closePayload(int code, String reason) {
        byte[] text = Utf8.encode(reason == null ? "" : reason);
        int len = Math.min(text.length, 123);
        byte[] out = new byte[2 + len];
        out[0] = (byte) (code >>> 8);
        out[1] = (byte) code;
        System.arraycopy(text, 0, out, 2, len);
        return out;
    }

    /** A frame as read from the server. */
    public static final class Frame {
        public final boolean fin;
        public final int opcode;
        public final byte[] payload;

        Frame(boolean fin, int opcode, byte[] payload) {
            this.fin = fin;
            this.opcode = opcode;
            this.payload = payload;
        }

        public boolean isControl() {
            return (opcode & 0x8) != 0;
        }
    }

    /** Reads the server's frames from a stream, refusing any frame RFC 6455 forbids a server to send. */
    public static final class Reader {
        private final InputStream in;
        private final int maxPayload;

        public Reader(InputStream in, int maxPayload) {
            this.in = in;
            this.maxPayload = maxPayload;
        }

        public Frame next() throws IOException {
            int b0 = readByte();
            int b1 = readByte();
            boolean fin = (b0 & 0x80) != 0;
            int opcode = b0 & 0x0F;
            if ((b0 & 0x70) != 0) throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "reserved bits set without an extension");
            if ((b1 & 0x80) != 0) throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "the server masked a frame");
            boolean control = (opcode & 0x8) != 0;
            if (!(opcode == CONTINUATION || opcode == TEXT || opcode == BINARY || opcode == CLOSE || opcode == PING || opcode == PONG)) {
                throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "unknown opcode " + opcode);
            }
            long length = b1 & 0x7F;
            if (length == 126) {
                length = (readByte() << 8) | readByte();
            } else if (length == 127) {
                length = 0;
                for (int i = 0; i < 8; i++) length = (length << 8) | readByte();
                if (length < 0) throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "negative frame length");
            }
            if (control && (length > 125 || !fin)) {
                throw new WebSocketException(WebSocketException.PROTOCOL_ERROR, "control frame fragmented or longer than 125 bytes");
            }
            if (length > maxPayload) throw new WebSocketException(WebSocketException.TOO_BIG, "frame of " + length + " bytes is over the limit of " + maxPayload);
            byte[] payload = new byte[(int) length];
            int read = 0;
            while (read < payload.length) {
                int n = in.read(payload, read, payload.length - read);
                if (n < 0) throw new EOFException("connection closed inside a frame");
                read += n;
            }
            return new Frame(fin, opcode, payload);
        }

        private int readByte() throws IOException {
            int b = in.read();
            if (b < 0) throw new EOFException("connection closed");
            return b;
        }
    }
}
