package dev.voicegateway.core;

/**
 * A call as the platform (Telecom) shows it at one moment. {@link #state} and
 * {@link #disconnectCode} use Telecom's own numbers ({@link TelecomStates}).
 */
public final class NativeCall {
    /** Stable for the life of the call, also across a restart of the app. */
    public final String id;
    public final boolean incoming;
    /** The remote party's number as the platform gives it; empty when withheld. */
    public final String number;
    public final int state;
    /** DisconnectCause code; meaningful once {@link #state} is DISCONNECTED. */
    public final int disconnectCode;
    /** DisconnectCause reason or description; null when the platform gives none. */
    public final String disconnectReason;

    public NativeCall(String id, boolean incoming, String number, int state, int disconnectCode, String disconnectReason) {
        this.id = id;
        this.incoming = incoming;
        this.number = number == null ? "" : number;
        this.state = state;
        this.disconnectCode = disconnectCode;
        this.disconnectReason = disconnectReason;
    }

    public NativeCall withState(int newState) {
        return new NativeCall(id, incoming, number, newState, disconnectCode, disconnectReason);
    }

    public NativeCall disconnected(int code, String reason) {
        return new NativeCall(id, incoming, number, TelecomStates.DISCONNECTED, code, reason);
    }

    @Override
    public String toString() {
        return "NativeCall{" + id + " " + (incoming ? "incoming" : "outgoing") + " " + TelecomStates.name(state) + "}";
    }
}
