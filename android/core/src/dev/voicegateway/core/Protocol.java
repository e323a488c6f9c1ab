package dev.voicegateway.core;

/** The vocabulary of phone-protocol.md (version 1 and extension 1.1), in its own words. */
public final class Protocol {
    private Protocol() {
    }

    // Close codes of the phone socket.
    public static final int CLOSE_REPLACED = 4000;
    public static final int CLOSE_REVOKED = 4001;

    // Command actions.
    public static final String DIAL = "dial";
    public static final String ANSWER = "answer";
    public static final String REJECT = "reject";
    public static final String HANGUP = "hangup";
    public static final String HOLD = "hold";
    public static final String UNHOLD = "unhold";
    public static final String DTMF = "dtmf";

    // Event names of the spec.
    public static final String CALL_NEW = "call.new";
    public static final String CALL_CONNECTING = "call.connecting";
    public static final String CALL_SELECT_PHONE_ACCOUNT = "call.select_phone_account";
    public static final String CALL_DIALING = "call.dialing";
    public static final String CALL_RINGING = "call.ringing";
    public static final String CALL_SIMULATED_RINGING = "call.simulated_ringing";
    public static final String CALL_ACTIVE = "call.active";
    public static final String CALL_AUDIO_PROCESSING = "call.audio_processing";
    public static final String CALL_HOLDING = "call.holding";
    public static final String CALL_PULLING = "call.pulling";
    public static final String CALL_DISCONNECTING = "call.disconnecting";
    public static final String CALL_DISCONNECTED = "call.disconnected";
    public static final String CALL_REJECTED = "call.rejected";
    public static final String CALL_FAILED = "call.failed";

    // payload.cause of call.disconnected.
    public static final String CAUSE_LOCAL = "local";
    public static final String CAUSE_REMOTE = "remote";
    public static final String CAUSE_BUSY = "busy";
    public static final String CAUSE_REJECTED = "rejected";
    public static final String CAUSE_MISSED = "missed";
    public static final String CAUSE_ERROR = "error";
    public static final String CAUSE_OTHER = "other";

    // Codes of a refused command (ack ok:false). DEVICE_BUSY and INVALID_STATE mean what they mean
    // in the contract's error table; the rest are the phone's own (docs/phone-protocol.md).
    public static final String BAD_COMMAND = "BAD_COMMAND";
    public static final String DEVICE_BUSY = "DEVICE_BUSY";
    public static final String NO_CALL = "NO_CALL";
    public static final String INVALID_STATE = "INVALID_STATE";
    public static final String NO_PERMISSION = "NO_PERMISSION";
    public static final String NO_SIM = "NO_SIM";
    /** Extension 1.4: the SIM slot a dial asked for has no usable SIM. */
    public static final String SIM_UNAVAILABLE = "SIM_UNAVAILABLE";
    public static final String NOT_DEFAULT_DIALER = "NOT_DEFAULT_DIALER";
    public static final String NOT_SUPPORTED = "NOT_SUPPORTED";
    public static final String PLATFORM_ERROR = "PLATFORM_ERROR";

    // health.audio.
    public static final String AUDIO_RUNNING = "running";
    public static final String AUDIO_STOPPED = "stopped";
    public static final String AUDIO_PAIRING_REQUIRED = "pairing_required";

    /** 20 ms of 16 kHz mono s16le. */
    public static final int FRAME_BYTES = 640;
    public static final int FRAME_MS = 20;
}
