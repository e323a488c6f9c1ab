package dev.voicegateway.core.ws;

import java.io.IOException;

/** The server answered the upgrade with something other than 101 (for example 401 for a revoked token). */
public final class HandshakeException extends IOException {
    public final int status;
    /** The response body (at most 64 KiB), often the contract's error JSON; empty when there was none. */
    public final String body;

    public HandshakeException(int status, String message, String body) {
        super(message);
        this.status = status;
        this.body = body == null ? "" : body;
    }
}
