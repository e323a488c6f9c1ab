package dev.voicegateway.core.helper;

import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.audio.AudioCapabilities;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The framing between the app and the audio helper, version 1. Every message is a type byte, a
 * payload length (2 bytes, big-endian, at most {@link #MAX_PAYLOAD}) and the payload:
 *
 * <pre>
 * HELLO         "VGAH" version:u8
 * CAPABILITIES  capture:u8 inject:u8 sampleRate:u32 methodLength:u8 method(ASCII) note(UTF-8, the rest)
 * STATUS        flags:u8 (1 capturing, 2 injecting) problem(UTF-8, the rest)
 * DIAGNOSTICS   a JSON object (UTF-8, the whole payload)
 * PING, PONG    token:u32
 * AUDIO         640 bytes of 16 kHz mono s16le
 * ERROR         reason(UTF-8)
 * START_CAPTURE, STOP_CAPTURE, START_INJECTION, STOP_INJECTION, SHUTDOWN, REPLACE: empty
 * </pre>
 *
 * A message of a type this version does not know is skipped, so a later minor addition does not
 * break an older peer; anything that would is a new version, which HELLO makes each side see first.
 */
public final class HelperCodec {
    public static final int VERSION = 1;
    public static final int MAX_PAYLOAD = 4096;
    private static final byte[] MAGIC = {'V', 'G', 'A', 'H'};
    private static final int MAX_TEXT = 1000;

    private HelperCodec() {
    }

    /** A message that breaks the framing; the connection cannot go on. */
    public static final class FramingException extends IOException {
        public FramingException(String message) {
            super(message);
        }
    }

    public static byte[] encode(HelperMessage m) {
        ByteArrayOutputStream p = new ByteArrayOutputStream(16);
        switch (m.type) {
            case HelperMessage.HELLO:
                p.write(MAGIC, 0, MAGIC.length);
                p.write(m.version);
                break;
            case HelperMessage.CAPABILITIES: {
                AudioCapabilities c = m.capabilities;
                p.write(c.capture ? 1 : 0);
                p.write(c.inject ? 1 : 0);
                writeInt(p, c.sampleRate);
                byte[] method = c.method.getBytes(StandardCharsets.US_ASCII);
                p.write(method.length);
                p.write(method, 0, method.length);
                writeText(p, m.note);
                break;
            }
            case HelperMessage.STATUS:
                p.write((m.capturing ? 1 : 0) | (m.injecting ? 2 : 0));
                writeText(p, m.text);
                break;
            case HelperMessage.PING:
            case HelperMessage.PONG:
                writeInt(p, m.token);
                break;
            case HelperMessage.AUDIO:
                p.write(m.frame(), 0, Protocol.FRAME_BYTES);
                break;
            case HelperMessage.ERROR:
                writeText(p, m.text);
                break;
            case HelperMessage.DIAGNOSTICS: {
                byte[] json = m.text.getBytes(StandardCharsets.UTF_8);
                if (json.length > MAX_PAYLOAD) throw new IllegalArgumentException("DIAGNOSTICS: " + json.length + " bytes is over the " + MAX_PAYLOAD + "-byte bound");
                p.write(json, 0, json.length);
                break;
            }
            default:
                break;
        }
        byte[] payload = p.toByteArray();
        byte[] out = new byte[3 + payload.length];
        out[0] = (byte) m.type;
        out[1] = (byte) (payload.length >> 8);
        out[2] = (byte) payload.length;
        System.arraycopy(payload, 0, out, 3, payload.length);
        return out;
    }

    /**
     * Reads the next message this version knows (skipping unknown ones). Throws EOFException at
     * the end of the stream, also in the middle of a message, and FramingException for a message
     * that breaks the framing.
     */
    public static HelperMessage read(InputStream in) throws IOException {
        DataInputStream data = in instanceof DataInputStream ? (DataInputStream) in : new DataInputStream(in);
        while (true) {
            int type = data.read();
            if (type < 0) throw new EOFException("the peer closed the connection");
            int length = data.readUnsignedShort();
            if (length > MAX_PAYLOAD) throw new FramingException("a payload of " + length + " bytes is over the " + MAX_PAYLOAD + "-byte bound");
            byte[] payload = new byte[length];
            data.readFully(payload);
            HelperMessage m = decode(type, payload);
            if (m != null) return m;
        }
    }

    /** The message of one frame's type and payload; null for a type this version does not know. */
    public static HelperMessage decode(int type, byte[] p) throws FramingException {
        switch (type) {
            case HelperMessage.HELLO:
                need(type, p, 5, 5);
                for (int i = 0; i < MAGIC.length; i++) {
                    if (p[i] != MAGIC[i]) throw new FramingException("not the audio helper's framing (no VGAH magic)");
                }
                return HelperMessage.hello(p[4] & 0xff);
            case HelperMessage.CAPABILITIES: {
                need(type, p, 7, MAX_PAYLOAD);
                int methodLength = p[6] & 0xff;
                if (7 + methodLength > p.length) throw new FramingException("CAPABILITIES: the method name runs past the payload");
                String method = new String(p, 7, methodLength, StandardCharsets.US_ASCII);
                if (!method.matches("[a-z0-9_]{1,32}")) throw new FramingException("CAPABILITIES: bad method name");
                AudioCapabilities c = new AudioCapabilities(p[0] != 0, p[1] != 0, method, readInt(p, 2));
                return HelperMessage.capabilities(c, text(p, 7 + methodLength));
            }
            case HelperMessage.STATUS:
                need(type, p, 1, MAX_PAYLOAD);
                return HelperMessage.status((p[0] & 1) != 0, (p[0] & 2) != 0, text(p, 1));
            case HelperMessage.PING:
            case HelperMessage.PONG:
                need(type, p, 4, 4);
                return type == HelperMessage.PING ? HelperMessage.ping(readInt(p, 0)) : HelperMessage.pong(readInt(p, 0));
            case HelperMessage.AUDIO:
                need(type, p, Protocol.FRAME_BYTES, Protocol.FRAME_BYTES);
                return HelperMessage.audio(p);
            case HelperMessage.ERROR:
                return HelperMessage.error(text(p, 0));
            case HelperMessage.DIAGNOSTICS:
                // Kept as text: a report the app cannot read is its problem to show, not a broken framing.
                return HelperMessage.diagnostics(text(p, 0));
            case HelperMessage.START_CAPTURE:
            case HelperMessage.STOP_CAPTURE:
            case HelperMessage.START_INJECTION:
            case HelperMessage.STOP_INJECTION:
            case HelperMessage.SHUTDOWN:
            case HelperMessage.REPLACE:
                need(type, p, 0, 0);
                return HelperMessage.of(type);
            default:
                return null;
        }
    }

    static String name(int type) {
        switch (type) {
            case HelperMessage.HELLO: return "HELLO";
            case HelperMessage.CAPABILITIES: return "CAPABILITIES";
            case HelperMessage.STATUS: return "STATUS";
            case HelperMessage.DIAGNOSTICS: return "DIAGNOSTICS";
            case HelperMessage.START_CAPTURE: return "START_CAPTURE";
            case HelperMessage.STOP_CAPTURE: return "STOP_CAPTURE";
            case HelperMessage.START_INJECTION: return "START_INJECTION";
            case HelperMessage.STOP_INJECTION: return "STOP_INJECTION";
            case HelperMessage.PING: return "PING";
            case HelperMessage.PONG: return "PONG";
            case HelperMessage.AUDIO: return "AUDIO";
            case HelperMessage.SHUTDOWN: return "SHUTDOWN";
            case HelperMessage.REPLACE: return "REPLACE";
            case HelperMessage.ERROR: return "ERROR";
            default: return "0x" + Integer.toHexString(type);
        }
    }

    /**
     * The engine's diagnostics as JSON that fits one message: as it is when it fits; else its
     * {@code attempts} and the facts that are numbers, booleans or short texts, with as many attempts
     * (first tried first) as fit, their messages cut, and {@code "truncated": true}.
     */
    public static String diagnosticsJson(JSONObject d) {
        String whole = d.toString();
        if (utf8Length(whole) <= MAX_PAYLOAD) return whole;
        try {
            JSONObject small = new JSONObject();
            small.put("truncated", true);
            java.util.Iterator<String> keys = d.keys();
            while (keys.hasNext()) {
                String k = keys.next();
                Object v = d.get(k);
                if (k.equals("attempts")) continue;
                if (v instanceof Number || v instanceof Boolean || (v instanceof String && ((String) v).length() <= 200)) small.put(k, v);
            }
            JSONArray all = d.optJSONArray("attempts");
            JSONArray kept = new JSONArray();
            small.put("attempts", kept);
            for (int i = 0; all != null && i < all.length(); i++) {
                JSONObject a = all.optJSONObject(i);
                if (a == null) continue;
                JSONObject cut = new JSONObject(a.toString());
                String message = cut.optString("message", "");
                if (message.length() > 300) cut.put("message", message.substring(0, 300) + "…");
                kept.put(cut);
                if (utf8Length(small.toString()) > MAX_PAYLOAD) {
                    kept.remove(kept.length() - 1);
                    break;
                }
            }
            String out = small.toString();
            // Facts alone over the bound (never expected): only the mark stays.
            return utf8Length(out) <= MAX_PAYLOAD ? out : "{\"truncated\":true}";
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static void need(int type, byte[] p, int min, int max) throws FramingException {
        if (p.length < min || p.length > max) {
            throw new FramingException(name(type) + ": a payload of " + p.length + " bytes (expected " + (min == max ? String.valueOf(min) : min + " to " + max) + ")");
        }
    }

    private static void writeInt(ByteArrayOutputStream p, int v) {
        p.write(v >>> 24);
        p.write(v >>> 16);
        p.write(v >>> 8);
        p.write(v);
    }

    private static int readInt(byte[] p, int at) {
        return (p[at] & 0xff) << 24 | (p[at + 1] & 0xff) << 16 | (p[at + 2] & 0xff) << 8 | (p[at + 3] & 0xff);
    }

    private static void writeText(ByteArrayOutputStream p, String text) {
        String t = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) : text;
        byte[] b = t.getBytes(StandardCharsets.UTF_8);
        p.write(b, 0, b.length);
    }

    private static String text(byte[] p, int from) {
        return new String(p, from, p.length - from, StandardCharsets.UTF_8);
    }
}
