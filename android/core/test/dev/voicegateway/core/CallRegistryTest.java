package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Test;

/** Which platform calls the gateway hears of, under which callId, across restarts. */
public class CallRegistryTest {
    private final MemoryStorage disk = new MemoryStorage();
    private final ManualClock clock = new ManualClock();
    private final FakeTelephony telephony = new FakeTelephony();
    private final List<JSONObject> events = new ArrayList<JSONObject>();
    private CallRegistry calls;

    private CallRegistry registry() {
        return new CallRegistry(disk, clock, telephony, new CallRegistry.Events() {
            @Override
            public void onEvent(JSONObject event, CallRegistry.TrackedCall call) {
                events.add(event);
            }
        }, Log.NONE);
    }

    @Before
    public void setUp() {
        calls = registry();
        calls.restore(Collections.<NativeCall>emptyList());
    }

    private static NativeCall incoming(String id, int state) {
        return new NativeCall(id, true, "+15550100", state, 0, null);
    }

    private static NativeCall outgoing(String id, int state) {
        return new NativeCall(id, false, "+15550199", state, 0, null);
    }

    private List<String> names() {
        List<String> out = new ArrayList<String>();
        for (JSONObject e : events) out.add(e.optString("event"));
        return out;
    }

    @Test
    public void anIncomingCallIsReportedWithoutCallIdUntilTheGatewayNamesIt() {
        calls.onCallChanged(incoming("n1", TelecomStates.RINGING));
        JSONObject ring = events.get(0);
        assertEquals("call.ringing", ring.optString("event"));
        assertEquals("incoming", ring.optString("direction"));
        assertEquals("+15550100", ring.optString("remoteNumber"));
        assertFalse(ring.has("callId"));
        assertEquals("2023-11-14T22:13:20.000Z", ring.optString("occurredAt"));
        calls.onCallIdKnown("n1", "call_9");
        calls.onCallChanged(incoming("n1", TelecomStates.ACTIVE));
        assertEquals("call_9", events.get(1).optString("callId"));
    }

    @Test
    public void aDialLinksTheNextOutgoingCallToItsCallId() {
        calls.expectDial("call_1", "+15550199");
        assertTrue(calls.busy());
        calls.onCallChanged(outgoing("n2", TelecomStates.CONNECTING));
        calls.onCallChanged(outgoing("n2", TelecomStates.DIALING));
        calls.onCallChanged(outgoing("n2", TelecomStates.ACTIVE));
        calls.onCallChanged(outgoing("n2", TelecomStates.DISCONNECTED).disconnected(TelecomStates.CAUSE_REMOTE, null));
        assertEquals(java.util.Arrays.asList("call.connecting", "call.dialing", "call.active", "call.disconnected"), names());
        for (JSONObject e : events) assertEquals("call_1", e.optString("callId"));
        assertNull(calls.current());
        assertFalse(calls.busy());
        clock.advance(CallRegistry.DIAL_TIMEOUT_MS * 2);
        assertEquals("no failure after the call appeared", 4, events.size());
    }

    @Test
    public void aDialThatNeverShowsUpFails() {
        calls.expectDial("call_1", "+15550199");
        clock.advance(CallRegistry.DIAL_TIMEOUT_MS - 1);
        assertTrue(events.isEmpty());
        clock.advance(1);
        assertEquals("call.failed", events.get(0).optString("event"));
        assertEquals("call_1", events.get(0).optString("callId"));
        assertFalse(calls.busy());
    }

    @Test
    public void aCallMadeByHandIsNotReportedButKeepsThePhoneBusy() {
        calls.onCallChanged(outgoing("mine", TelecomStates.DIALING));
        assertTrue(events.isEmpty());
        assertNull(calls.current());
        assertTrue(calls.busy());
        calls.onCallChanged(incoming("n3", TelecomStates.RINGING));
        assertEquals("a call ringing meanwhile is rejected", Collections.singletonList("reject n3"), telephony.asked);
        assertTrue(events.isEmpty());
    }

    @Test
    public void aSecondIncomingCallIsRejectedAndNotReported() {
        calls.onCallChanged(incoming("n1", TelecomStates.RINGING));
        calls.onCallChanged(incoming("n1", TelecomStates.ACTIVE));
        calls.onCallChanged(incoming("n2", TelecomStates.RINGING));
        calls.onCallChanged(incoming("n2", TelecomStates.DISCONNECTED).disconnected(TelecomStates.CAUSE_REJECTED, null));
        assertEquals(java.util.Arrays.asList("call.ringing", "call.active"), names());
        assertEquals(Collections.singletonList("reject n2"), telephony.asked);
        assertEquals("n1", calls.current().nativeCallId);
    }

    @Test
    public void aRestartKeepsTheCallIdOfTheCallInProgress() {
        calls.expectDial("call_1", "+15550199");
        calls.onCallChanged(outgoing("n2", TelecomStates.DIALING));
        events.clear();
        CallRegistry restarted = registry();
        telephony.platformCalls.add(outgoing("n2", TelecomStates.ACTIVE));
        restarted.restore(telephony.calls());
        assertEquals("call.active", events.get(0).optString("event"));
        assertEquals("call_1", events.get(0).optString("callId"));
        assertEquals("call_1", restarted.current().callId);
    }

    @Test
    public void aCallThatEndedWhileTheAppWasNotRunningIsReportedEnded() {
        calls.onCallChanged(incoming("n1", TelecomStates.RINGING));
        calls.onCallIdKnown("n1", "call_5");
        calls.onCallChanged(incoming("n1", TelecomStates.ACTIVE));
        events.clear();
        registry().restore(Collections.<NativeCall>emptyList());
        clock.advance(CallRegistry.RESTORE_GRACE_MS - 1);
        assertTrue("Telecom may still hand the call back", events.isEmpty());
        clock.advance(1);
        assertEquals("call.disconnected", events.get(0).optString("event"));
        assertEquals("call_5", events.get(0).optString("callId"));
        assertEquals("other", events.get(0).optJSONObject("payload").optString("cause"));
    }

    @Test
    public void aStoredCallThatTelecomHandsBackLateGoesOn() {
        calls.expectDial("call_1", "+15550199");
        calls.onCallChanged(outgoing("n2", TelecomStates.ACTIVE));
        events.clear();
        CallRegistry restarted = registry();
        restarted.restore(Collections.<NativeCall>emptyList());
        assertEquals("the hello still names the call", "call_1", restarted.current().callId);
        restarted.onCallChanged(outgoing("n2", TelecomStates.ACTIVE));
        restarted.onCallChanged(outgoing("n2", TelecomStates.HOLDING));
        clock.advance(CallRegistry.RESTORE_GRACE_MS * 2);
        assertEquals(java.util.Collections.singletonList("call.holding"), names());
        assertEquals("call_1", events.get(0).optString("callId"));
    }

    @Test
    public void aCallRingingWhenTheAppStartsIsReported() {
        // Telecom starts the app's process for a ringing call: it may already be there at the restore.
        telephony.platformCalls.add(incoming("n9", TelecomStates.RINGING));
        CallRegistry fresh = registry();
        fresh.restore(telephony.calls());
        assertEquals(java.util.Collections.singletonList("call.ringing"), names());
        assertEquals("n9", fresh.current().nativeCallId);
    }

    @Test
    public void aPlatformCallNobodyStoredIsNotTheGateways() {
        telephony.platformCalls.add(incoming("unknown", TelecomStates.ACTIVE));
        CallRegistry fresh = registry();
        fresh.restore(telephony.calls());
        assertTrue(events.isEmpty());
        assertNull(fresh.current());
        assertTrue(fresh.busy());
    }
}
