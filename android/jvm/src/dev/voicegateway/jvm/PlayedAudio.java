package dev.voicegateway.jvm;

/** What was played into the call on the host (the tone port's recorder, or the fake helper's sink). */
interface PlayedAudio {
    long framesPlayed();

    /** Frames played that were not silence: the gateway's audio, not the jitter buffer's filler. */
    long framesAudible();

    /** What was played, silence included, up to a minute. */
    byte[] recorded();

    void resetRecorded();
}
