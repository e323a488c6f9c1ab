package dev.voicegateway.core;

/**
 * Whether a dial is refused for the SIM's state (TelephonyManager.getSimState(); the values are
 * TelephonyManager's SIM_STATE_* constants, API 1). Pure, so the host tests it.
 */
public final class SimStates {
    public static final int UNKNOWN = 0;
    public static final int ABSENT = 1;
    public static final int PIN_REQUIRED = 2;
    public static final int PUK_REQUIRED = 3;
    public static final int NETWORK_LOCKED = 4;
    public static final int READY = 5;

    private SimStates() {
    }

    /**
     * Why no call can be placed, or null to let Telecom place it. UNKNOWN is not refused:
     * TelephonyManager.getSimState() answers it whenever the default subscription's slot is invalid,
     * which on a dual-SIM phone set to "ask every time" it is while SIMs are present (getSimState:
     * getSlotIndex() invalid -> SIM_STATE_UNKNOWN unless no SIM is present at all). Telecom knows better.
     */
    public static String problem(int state) {
        switch (state) {
            case READY: return null;
            case UNKNOWN: return null;
            case ABSENT: return "there is no SIM card in the phone";
            case PIN_REQUIRED: return "the SIM card is locked: enter its PIN on the phone";
            case PUK_REQUIRED: return "the SIM card is blocked: it needs its PUK";
            case NETWORK_LOCKED: return "the SIM card is network-locked";
            default: return "the SIM card is not ready (state " + state + ")";
        }
    }
}
