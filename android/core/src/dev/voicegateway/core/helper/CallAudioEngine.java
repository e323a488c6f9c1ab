package dev.voicegateway.core.helper;

import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.FrameAdapter;
import org.json.JSONObject;

/**
 * Where the helper's audio really comes from and goes to: AudioRecord/AudioTrack on the phone,
 * a tone and a recorder on the host. Frames are the protocol's (640 bytes, 16 kHz mono s16le).
 */
public interface CallAudioEngine {
    /** What the engine can do now; may change once a call shows which capture really opens. */
    AudioCapabilities capabilities();

    /** Why it cannot do more, for a person to read; "" when it can do everything. */
    String note();

    /**
     * What the engine tried and saw, for the phone's self-test report (docs/android.md, "The
     * self-test"): at least {@code "attempts"}, a list of {@code {"way", "result": "opened"|"failed",
     * "exception", "message"}} in the order tried, and whatever platform facts the engine read
     * (SDK level, isPstnCallAudioInterceptable, the audio mode seen). Small: it travels in one
     * helper message of at most 4096 bytes of UTF-8 JSON.
     */
    JSONObject diagnostics();

    /**
     * Starts hearing the remote party: every frame goes to {@code sink}, from the engine's own
     * thread, until {@link Running#stop}, or until the platform ends it ({@code ended} is then told
     * why, once, from the engine's thread; the capture has let go of its resources by then). Throws,
     * with a sentence saying why, when it cannot start.
     */
    Running startCapture(FrameAdapter.FrameSink sink, Ended ended) throws Exception;

    /** A capture that ended by itself: AudioRecord.read failed, or AudioManager released the record when the mode left the call's. */
    interface Ended {
        void captureEnded(String why);
    }

    /** Starts speaking into the call; throws, with a sentence saying why, when it cannot. */
    Injection startInjection() throws Exception;

    /** A capture or an injection under way. */
    interface Running {
        /** Stops and lets go of the platform's resources; idempotent. */
        void stop();
    }

    interface Injection extends Running {
        /** One frame toward the remote party; never blocks for long (a full player drops it). */
        void write(byte[] frame);
    }
}
