package dev.voicegateway.core.ws;

import java.io.IOException;

/** The server broke RFC 6455; {@link #closeCode} is the code the client closes with. */
public final class WebSocketException extends IOException {
    public static final int PROTOCOL_ERROR = 1002;
    public static final int INVALID_DATA = 1007;
    public static final int TOO_BIG = 1009;

    public final int closeCode;

    public WebSocketException(int closeCode, String message) {
        super(message);
        this.closeCode = closeCode;
    }
}
