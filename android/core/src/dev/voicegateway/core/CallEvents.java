package dev.voicegateway.core;

import org.json.JSONException;
import org.json.JSONObject;

/**
 * Pure: which protocol event a change of a Telecom call becomes (the table in docs/android.md).
 */
public final class CallEvents {
    private CallEvents() {
    }

    /** An event name and its payload. */
    public static final class Change {
        public final String event;
        public final JSONObject payload;

        Change(String event, JSONObject payload) {
            this.event = event;
            this.payload = payload;
        }
    }

    /**
     * The event for a call that moves from {@code previousState} (-1 for a call seen for the first
     * time) to {@code now.state}, or null when nothing the protocol names has changed.
     *
     * @param everActive       the call was active at some point before this change
     * @param rejectRequested  the gateway's {@code reject} command asked the platform to end it
     */
    public static Change forChange(int previousState, NativeCall now, boolean everActive, boolean rejectRequested) {
        if (previousState == now.state) return null;
        switch (now.state) {
            case TelecomStates.NEW: return change(Protocol.CALL_NEW);
            case TelecomStates.CONNECTING: return change(Protocol.CALL_CONNECTING);
            case TelecomStates.SELECT_PHONE_ACCOUNT: return change(Protocol.CALL_SELECT_PHONE_ACCOUNT);
            case TelecomStates.DIALING: return change(Protocol.CALL_DIALING);
            case TelecomStates.RINGING: return change(Protocol.CALL_RINGING);
            case TelecomStates.SIMULATED_RINGING: return change(Protocol.CALL_SIMULATED_RINGING);
            case TelecomStates.ACTIVE: return change(Protocol.CALL_ACTIVE);
            case TelecomStates.AUDIO_PROCESSING: return change(Protocol.CALL_AUDIO_PROCESSING);
            case TelecomStates.HOLDING: return change(Protocol.CALL_HOLDING);
            case TelecomStates.PULLING_CALL: return change(Protocol.CALL_PULLING);
            case TelecomStates.DISCONNECTING: return change(Protocol.CALL_DISCONNECTING);
            case TelecomStates.DISCONNECTED: return ended(now, everActive, rejectRequested);
            default: return null;
        }
    }

    private static Change ended(NativeCall call, boolean everActive, boolean rejectRequested) {
        JSONObject payload = new JSONObject();
        if (call.incoming && !everActive && rejectRequested) {
            put(payload, "reason", call.disconnectReason);
            return new Change(Protocol.CALL_REJECTED, payload);
        }
        int code = call.disconnectCode;
        if (!call.incoming && !everActive
                && (code == TelecomStates.CAUSE_ERROR || code == TelecomStates.CAUSE_RESTRICTED
                        || code == TelecomStates.CAUSE_CONNECTION_MANAGER_NOT_SUPPORTED)) {
            put(payload, "reason", call.disconnectReason != null ? call.disconnectReason : failureText(code));
            return new Change(Protocol.CALL_FAILED, payload);
        }
        put(payload, "cause", cause(code, call.incoming, everActive));
        put(payload, "reason", call.disconnectReason);
        return new Change(Protocol.CALL_DISCONNECTED, payload);
    }

    /** DisconnectCause code to the protocol's {@code payload.cause}. */
    public static String cause(int code, boolean incoming, boolean everActive) {
        switch (code) {
            case TelecomStates.CAUSE_LOCAL:
            case TelecomStates.CAUSE_CANCELED:
                return Protocol.CAUSE_LOCAL;
            case TelecomStates.CAUSE_REMOTE:
                // The caller gave up before anyone answered: that is a missed call.
                return incoming && !everActive ? Protocol.CAUSE_MISSED : Protocol.CAUSE_REMOTE;
            case TelecomStates.CAUSE_BUSY:
                return Protocol.CAUSE_BUSY;
            case TelecomStates.CAUSE_REJECTED:
                return Protocol.CAUSE_REJECTED;
            case TelecomStates.CAUSE_MISSED:
                return Protocol.CAUSE_MISSED;
            case TelecomStates.CAUSE_ERROR:
            case TelecomStates.CAUSE_RESTRICTED:
            case TelecomStates.CAUSE_CONNECTION_MANAGER_NOT_SUPPORTED:
                return Protocol.CAUSE_ERROR;
            default: // UNKNOWN, OTHER, ANSWERED_ELSEWHERE, CALL_PULLED
                return Protocol.CAUSE_OTHER;
        }
    }

    /** The spec's call state for {@code hello.call.state}. */
    public static String specState(int telecomState) {
        switch (telecomState) {
            case TelecomStates.RINGING:
            case TelecomStates.SIMULATED_RINGING:
                return "ringing";
            case TelecomStates.ACTIVE:
            case TelecomStates.AUDIO_PROCESSING:
            case TelecomStates.DISCONNECTING:
            case TelecomStates.PULLING_CALL:
                return "active";
            case TelecomStates.HOLDING:
                return "held";
            case TelecomStates.DISCONNECTED:
                return "ended";
            default: // NEW, CONNECTING, SELECT_PHONE_ACCOUNT, DIALING
                return "dialing";
        }
    }

    public static boolean isFinal(int telecomState) {
        return telecomState == TelecomStates.DISCONNECTED;
    }

    private static String failureText(int code) {
        if (code == TelecomStates.CAUSE_RESTRICTED) return "the call is restricted (no service, or calls barred)";
        if (code == TelecomStates.CAUSE_CONNECTION_MANAGER_NOT_SUPPORTED) return "no calling account can place this call";
        return "the call could not be placed";
    }

    private static Change change(String event) {
        return new Change(event, new JSONObject());
    }

    private static void put(JSONObject o, String key, String value) {
        if (value == null || value.isEmpty()) return;
        try {
            o.put(key, value);
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }
}
