package dev.voicegateway.core;

/**
 * android.telecom.Call.STATE_* and android.telecom.DisconnectCause codes, copied as numbers (they
 * are fixed public API) so the mapping to protocol events can be tested without Android.
 */
public final class TelecomStates {
    private TelecomStates() {
    }

    public static final int NEW = 0;
    public static final int DIALING = 1;
    public static final int RINGING = 2;
    public static final int HOLDING = 3;
    public static final int ACTIVE = 4;
    public static final int DISCONNECTED = 7;
    public static final int SELECT_PHONE_ACCOUNT = 8;
    public static final int CONNECTING = 9;
    public static final int DISCONNECTING = 10;
    public static final int PULLING_CALL = 11;
    public static final int AUDIO_PROCESSING = 12;
    public static final int SIMULATED_RINGING = 13;

    // DisconnectCause codes.
    public static final int CAUSE_UNKNOWN = 0;
    public static final int CAUSE_ERROR = 1;
    public static final int CAUSE_LOCAL = 2;
    public static final int CAUSE_REMOTE = 3;
    public static final int CAUSE_CANCELED = 4;
    public static final int CAUSE_MISSED = 5;
    public static final int CAUSE_REJECTED = 6;
    public static final int CAUSE_BUSY = 7;
    public static final int CAUSE_RESTRICTED = 8;
    public static final int CAUSE_OTHER = 9;
    public static final int CAUSE_CONNECTION_MANAGER_NOT_SUPPORTED = 10;
    public static final int CAUSE_ANSWERED_ELSEWHERE = 11;
    public static final int CAUSE_CALL_PULLED = 12;

    public static String name(int state) {
        switch (state) {
            case NEW: return "NEW";
            case DIALING: return "DIALING";
            case RINGING: return "RINGING";
            case HOLDING: return "HOLDING";
            case ACTIVE: return "ACTIVE";
            case DISCONNECTED: return "DISCONNECTED";
            case SELECT_PHONE_ACCOUNT: return "SELECT_PHONE_ACCOUNT";
            case CONNECTING: return "CONNECTING";
            case DISCONNECTING: return "DISCONNECTING";
            case PULLING_CALL: return "PULLING_CALL";
            case AUDIO_PROCESSING: return "AUDIO_PROCESSING";
            case SIMULATED_RINGING: return "SIMULATED_RINGING";
            default: return "STATE_" + state;
        }
    }
}
