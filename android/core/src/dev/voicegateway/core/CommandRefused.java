package dev.voicegateway.core;

/** A command the phone cannot carry out; it becomes {@code ack {ok: false, error: {code, message}}}. */
public final class CommandRefused extends Exception {
    public final String code;

    public CommandRefused(String code, String message) {
        super(message);
        this.code = code;
    }
}
