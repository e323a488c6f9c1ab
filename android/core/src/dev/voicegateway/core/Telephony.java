package dev.voicegateway.core;

import java.util.List;

/**
 * The platform's calls (Telecom and the InCallService on the phone, a simulation on the host).
 * Every method returns quickly: it asks the platform and does not wait for the call to change;
 * the change arrives later through {@link Listener#onCallChanged}.
 */
public interface Telephony {
    interface Listener {
        /** A call appeared or changed state; called with every change, from any thread. */
        void onCallChanged(NativeCall call);
    }

    void setListener(Listener listener);

    /** Places an outgoing call to {@code number}. Refusals: NOT_DEFAULT_DIALER, NO_PERMISSION, NO_SIM, DEVICE_BUSY. */
    void dial(String number) throws CommandRefused;

    void answer(String nativeCallId) throws CommandRefused;

    void reject(String nativeCallId) throws CommandRefused;

    void hangup(String nativeCallId) throws CommandRefused;

    void hold(String nativeCallId) throws CommandRefused;

    void unhold(String nativeCallId) throws CommandRefused;

    /** Starts the tone of one keypad digit (0-9, *, #) on the call. */
    void startTone(String nativeCallId, char digit) throws CommandRefused;

    void stopTone(String nativeCallId);

    /** Every call the platform has now, also calls made by hand, for the state after a restart. */
    List<NativeCall> calls();
}
