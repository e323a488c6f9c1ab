package dev.voicegateway.core.helper;

import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioCapabilities;
import java.util.Arrays;

/**
 * One message between the app and the audio helper (docs/android.md, "The helper's framing").
 * Only the fields of its type are set. Immutable; {@link HelperCodec} reads and writes them.
 */
public final class HelperMessage {
    /** Both ways, first on every connection: the magic and the framing version. */
    public static final int HELLO = 0x01;
    /** Helper to app: what it can do (after HELLO, and again when that changes). */
    public static final int CAPABILITIES = 0x02;
    /** Helper to app: whether it captures and injects now, and why not when it failed. */
    public static final int STATUS = 0x03;
    /**
     * Helper to app: what the engine tried and saw ({@link CallAudioEngine#diagnostics}), UTF-8 JSON,
     * after CAPABILITIES and after each capture or injection start. Added within version 1: an older
     * app skips it as a type it does not know.
     */
    public static final int DIAGNOSTICS = 0x04;
    public static final int START_CAPTURE = 0x10;
    public static final int STOP_CAPTURE = 0x11;
    public static final int START_INJECTION = 0x12;
    public static final int STOP_INJECTION = 0x13;
    public static final int PING = 0x20;
    public static final int PONG = 0x21;
    /** 640 bytes of 16 kHz mono s16le: captured (helper to app) or to inject (app to helper). */
    public static final int AUDIO = 0x30;
    /** The app (or the shell) asks the helper to exit. */
    public static final int SHUTDOWN = 0x40;
    /** A newly started helper (shell) asks the running one to give up the socket name and exit. */
    public static final int REPLACE = 0x41;
    /** The sender refuses the connection (wrong version, uid not allowed) and closes it. */
    public static final int ERROR = 0x7f;

    public final int type;
    public final int version;
    public final AudioCapabilities capabilities;
    /** CAPABILITIES: why the helper cannot do more (listen-only, no capture), or "". */
    public final String note;
    public final boolean capturing;
    public final boolean injecting;
    /** STATUS: the last failure ("" when none); ERROR: the reason; DIAGNOSTICS: the JSON. */
    public final String text;
    public final int token;
    private final byte[] audio;

    private HelperMessage(int type, int version, AudioCapabilities capabilities, String note, boolean capturing, boolean injecting,
            String text, int token, byte[] audio) {
        this.type = type;
        this.version = version;
        this.capabilities = capabilities;
        this.note = note;
        this.capturing = capturing;
        this.injecting = injecting;
        this.text = text;
        this.token = token;
        this.audio = audio;
    }

    public static HelperMessage hello(int version) {
        return new HelperMessage(HELLO, version, null, "", false, false, "", 0, null);
    }

    public static HelperMessage capabilities(AudioCapabilities capabilities, String note) {
        return new HelperMessage(CAPABILITIES, 0, capabilities, note == null ? "" : note, false, false, "", 0, null);
    }

    public static HelperMessage status(boolean capturing, boolean injecting, String problem) {
        return new HelperMessage(STATUS, 0, null, "", capturing, injecting, problem == null ? "" : problem, 0, null);
    }

    /** The engine's diagnostics as JSON text of at most {@link HelperCodec#MAX_PAYLOAD} bytes (see {@link HelperCodec#diagnosticsJson}). */
    public static HelperMessage diagnostics(String json) {
        return new HelperMessage(DIAGNOSTICS, 0, null, "", false, false, json, 0, null);
    }

    public static HelperMessage ping(int token) {
        return new HelperMessage(PING, 0, null, "", false, false, "", token, null);
    }

    public static HelperMessage pong(int token) {
        return new HelperMessage(PONG, 0, null, "", false, false, "", token, null);
    }

    /** A frame of audio; the array is kept, not copied (frames are never changed once made). */
    public static HelperMessage audio(byte[] frame) {
        if (frame.length != Protocol.FRAME_BYTES) throw new IllegalArgumentException("an audio frame is " + Protocol.FRAME_BYTES + " bytes, not " + frame.length);
        return new HelperMessage(AUDIO, 0, null, "", false, false, "", 0, frame);
    }

    public static HelperMessage error(String reason) {
        return new HelperMessage(ERROR, 0, null, "", false, false, reason, 0, null);
    }

    /** START_CAPTURE, STOP_CAPTURE, START_INJECTION, STOP_INJECTION, SHUTDOWN, REPLACE: no payload. */
    public static HelperMessage of(int type) {
        switch (type) {
            case START_CAPTURE:
            case STOP_CAPTURE:
            case START_INJECTION:
            case STOP_INJECTION:
            case SHUTDOWN:
            case REPLACE:
                return new HelperMessage(type, 0, null, "", false, false, "", 0, null);
            default:
                throw new IllegalArgumentException("message type " + type + " has a payload");
        }
    }

    /** The frame of an AUDIO message. */
    public byte[] frame() {
        return audio;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof HelperMessage)) return false;
        HelperMessage m = (HelperMessage) other;
        return type == m.type && version == m.version && (capabilities == null ? m.capabilities == null : capabilities.equals(m.capabilities))
                && note.equals(m.note) && capturing == m.capturing && injecting == m.injecting && text.equals(m.text) && token == m.token
                && Arrays.equals(audio, m.audio);
    }

    @Override
    public int hashCode() {
        return type * 31 + token;
    }

    @Override
    public String toString() {
        return "HelperMessage(" + HelperCodec.name(type) + ")";
    }
}
