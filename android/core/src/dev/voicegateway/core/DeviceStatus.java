package dev.voicegateway.core;

/** The phone's changing facts for health reports; each method returns null when it cannot tell. */
public interface DeviceStatus {
    /** 0–100. */
    Integer battery();

    Boolean charging();

    /** wifi, cellular, ethernet, other or none. */
    String network();

    /** 0–4 bars. */
    Integer signal();

    String carrier();
}
