package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

/** The mapping of docs/android.md: Telecom state changes to protocol events and causes. */
public class CallEventsTest {
    private static NativeCall call(boolean incoming, int state) {
        return new NativeCall("n1", incoming, "+15550100", state, 0, null);
    }

    private static String event(int from, boolean incoming, int to) {
        CallEvents.Change c = CallEvents.forChange(from, call(incoming, to), false, false);
        return c == null ? null : c.event;
    }

    @Test
    public void everyTelecomStateHasItsEventName() {
        assertEquals("call.new", event(-1, false, TelecomStates.NEW));
        assertEquals("call.connecting", event(TelecomStates.NEW, false, TelecomStates.CONNECTING));
        assertEquals("call.select_phone_account", event(TelecomStates.CONNECTING, false, TelecomStates.SELECT_PHONE_ACCOUNT));
        assertEquals("call.dialing", event(TelecomStates.CONNECTING, false, TelecomStates.DIALING));
        assertEquals("call.ringing", event(-1, true, TelecomStates.RINGING));
        assertEquals("call.simulated_ringing", event(-1, true, TelecomStates.SIMULATED_RINGING));
        assertEquals("call.active", event(TelecomStates.DIALING, false, TelecomStates.ACTIVE));
        assertEquals("call.audio_processing", event(TelecomStates.RINGING, true, TelecomStates.AUDIO_PROCESSING));
        assertEquals("call.holding", event(TelecomStates.ACTIVE, false, TelecomStates.HOLDING));
        assertEquals("call.active", event(TelecomStates.HOLDING, false, TelecomStates.ACTIVE));
        assertEquals("call.pulling", event(-1, false, TelecomStates.PULLING_CALL));
        assertEquals("call.disconnecting", event(TelecomStates.ACTIVE, false, TelecomStates.DISCONNECTING));
        assertEquals("call.disconnected", event(TelecomStates.ACTIVE, false, TelecomStates.DISCONNECTED));
    }

    @Test
    public void anUnchangedOrUnknownStateIsNoEvent() {
        assertNull(event(TelecomStates.ACTIVE, false, TelecomStates.ACTIVE));
        assertNull(event(TelecomStates.ACTIVE, false, 42));
    }

    private static CallEvents.Change ended(boolean incoming, int code, boolean everActive, boolean rejectRequested, String reason) {
        return CallEvents.forChange(TelecomStates.ACTIVE, new NativeCall("n1", incoming, "1", TelecomStates.DISCONNECTED, code, reason),
                everActive, rejectRequested);
    }

    @Test
    public void theEndOfACallCarriesItsCause() {
        assertEquals("local", ended(false, TelecomStates.CAUSE_LOCAL, true, false, null).payload.optString("cause"));
        assertEquals("local", ended(false, TelecomStates.CAUSE_CANCELED, false, false, null).payload.optString("cause"));
        assertEquals("remote", ended(false, TelecomStates.CAUSE_REMOTE, true, false, null).payload.optString("cause"));
        assertEquals("remote", ended(true, TelecomStates.CAUSE_REMOTE, true, false, null).payload.optString("cause"));
        assertEquals("missed", ended(true, TelecomStates.CAUSE_REMOTE, false, false, null).payload.optString("cause"));
        assertEquals("missed", ended(true, TelecomStates.CAUSE_MISSED, false, false, null).payload.optString("cause"));
        assertEquals("busy", ended(false, TelecomStates.CAUSE_BUSY, false, false, null).payload.optString("cause"));
        assertEquals("rejected", ended(true, TelecomStates.CAUSE_REJECTED, false, false, null).payload.optString("cause"));
        assertEquals("error", ended(false, TelecomStates.CAUSE_ERROR, true, false, null).payload.optString("cause"));
        assertEquals("other", ended(true, TelecomStates.CAUSE_ANSWERED_ELSEWHERE, false, false, null).payload.optString("cause"));
        assertEquals("other", ended(false, TelecomStates.CAUSE_UNKNOWN, true, false, null).payload.optString("cause"));
        CallEvents.Change withReason = ended(false, TelecomStates.CAUSE_REMOTE, true, false, "normal clearing");
        assertEquals("call.disconnected", withReason.event);
        assertEquals("normal clearing", withReason.payload.optString("reason"));
    }

    @Test
    public void aRejectCommandEndsInCallRejected() {
        CallEvents.Change c = ended(true, TelecomStates.CAUSE_REJECTED, false, true, null);
        assertEquals("call.rejected", c.event);
        // Rejected by hand on the phone's own screen it is a disconnection with cause rejected.
        assertEquals("call.disconnected", ended(true, TelecomStates.CAUSE_REJECTED, false, false, null).event);
    }

    @Test
    public void anOutgoingCallThatNeverConnectedAndErredFailed() {
        CallEvents.Change c = ended(false, TelecomStates.CAUSE_ERROR, false, false, "no service");
        assertEquals("call.failed", c.event);
        assertEquals("no service", c.payload.optString("reason"));
        assertEquals("call.failed", ended(false, TelecomStates.CAUSE_RESTRICTED, false, false, null).event);
        assertEquals("call.disconnected", ended(false, TelecomStates.CAUSE_ERROR, true, false, null).event);
        assertEquals("call.disconnected", ended(true, TelecomStates.CAUSE_ERROR, false, false, null).event);
    }

    @Test
    public void helloStatesAreTheSpecsNames() {
        assertEquals("dialing", CallEvents.specState(TelecomStates.CONNECTING));
        assertEquals("dialing", CallEvents.specState(TelecomStates.DIALING));
        assertEquals("ringing", CallEvents.specState(TelecomStates.RINGING));
        assertEquals("active", CallEvents.specState(TelecomStates.ACTIVE));
        assertEquals("held", CallEvents.specState(TelecomStates.HOLDING));
        assertEquals("ended", CallEvents.specState(TelecomStates.DISCONNECTED));
    }
}
