package dev.voicegateway.core.audio;

/**
 * The call's audio on the phone: where the remote party's voice comes from and where the
 * gateway's audio goes (the audio helper of docs/android.md on the phone, a tone and a recorder on
 * the host). Frames are 640 bytes: 20 ms of 16 kHz mono s16le.
 */
public interface AudioPort {
    interface Listener {
        /** One captured frame of the remote party, in real time; any thread. */
        void onCapturedFrame(byte[] frame);

        /** {@link #state()}, {@link #canInject()} or {@link #capabilities()} changed; any thread. */
        void onStateChanged();
    }

    void setListener(Listener listener);

    /** health.audio: running, stopped or pairing_required (dev.voicegateway.core.Protocol.AUDIO_*). */
    String state();

    /** False when audio can only be heard from the call, not sent into it (listen-only). */
    boolean canInject();

    /**
     * health.audioCapabilities: what the helper said it can do the last time it ran, or null when
     * the phone does not know (no helper ever ran).
     */
    default AudioCapabilities capabilities() {
        return null;
    }

    /** A call became active: start capturing (and injecting, if possible). */
    void startCall();

    /** The call is no longer active, or the socket is gone. */
    void stopCall();

    /** One frame toward the remote party; called every 20 ms while a call is started. */
    void play(byte[] frame);
}
