package dev.voicegateway.core.audio;

import org.json.JSONException;
import org.json.JSONObject;

/**
 * What the phone can do with a call's audio: health.audioCapabilities (docs/phone-protocol.md,
 * extension 1.2). {@code sampleRate} is the rate the phone captures at before the frames are
 * resampled to the protocol's 16 kHz; 0 when it cannot capture. Immutable.
 */
public final class AudioCapabilities {
    /** Android 13+: AudioManager's call-audio interception (downlink extraction, uplink injection). */
    public static final String CALL_INTERCEPTION = "call_interception";
    /** Android 11+: AudioRecord with MediaRecorder.AudioSource.VOICE_DOWNLINK; listen-only. */
    public static final String VOICE_DOWNLINK = "voice_downlink";
    /** The host's fake helper (npm run phone:jvm -- --helper fake). */
    public static final String SIMULATED = "simulated";
    public static final String NONE = "none";

    public static final AudioCapabilities NOTHING = new AudioCapabilities(false, false, NONE, 0);

    public final boolean capture;
    public final boolean inject;
    public final String method;
    public final int sampleRate;

    public AudioCapabilities(boolean capture, boolean inject, String method, int sampleRate) {
        if (!method.matches("[a-z0-9_]{1,32}")) throw new IllegalArgumentException("bad method name " + method);
        this.capture = capture;
        this.inject = inject;
        this.method = method;
        this.sampleRate = capture ? sampleRate : 0;
    }

    /** The health report's object; sampleRate only when the phone captures. */
    public JSONObject toJson() {
        JSONObject o = new JSONObject();
        try {
            o.put("capture", capture).put("inject", inject).put("method", method);
            if (capture) o.put("sampleRate", sampleRate);
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        return o;
    }

    /** The object {@link #toJson} wrote, or null when it is not one. */
    public static AudioCapabilities fromJson(JSONObject o) {
        if (o == null) return null;
        String method = o.optString("method", "");
        if (!method.matches("[a-z0-9_]{1,32}")) return null;
        return new AudioCapabilities(o.optBoolean("capture"), o.optBoolean("inject"), method, o.optInt("sampleRate", 0));
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof AudioCapabilities)) return false;
        AudioCapabilities c = (AudioCapabilities) other;
        return capture == c.capture && inject == c.inject && method.equals(c.method) && sampleRate == c.sampleRate;
    }

    @Override
    public int hashCode() {
        return ((method.hashCode() * 31 + sampleRate) * 2 + (capture ? 1 : 0)) * 2 + (inject ? 1 : 0);
    }

    @Override
    public String toString() {
        return toJson().toString();
    }
}
