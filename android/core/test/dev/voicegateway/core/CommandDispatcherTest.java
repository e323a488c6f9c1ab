package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import org.json.JSONException;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Test;

/** Every command, its ack, and every refusal code (docs/phone-protocol.md). */
public class CommandDispatcherTest {
    private final ManualClock clock = new ManualClock();
    private final FakeTelephony telephony = new FakeTelephony();
    private CallRegistry calls;
    private DtmfPlayer dtmf;
    private CommandDispatcher dispatcher;

    @Before
    public void setUp() {
        calls = new CallRegistry(new MemoryStorage(), clock, telephony, new CallRegistry.Events() {
            @Override
            public void onEvent(JSONObject event, CallRegistry.TrackedCall call) {
            }
        }, Log.NONE);
        calls.restore(Collections.<NativeCall>emptyList());
        dtmf = new DtmfPlayer(telephony, clock, Log.NONE);
        dispatcher = new CommandDispatcher(telephony, calls, dtmf, Log.NONE);
    }

    private CommandDispatcher.Ack send(String action, String callId, String payload) throws JSONException {
        return dispatcher.handle(new Command("c-" + action, callId, action, payload == null ? null : new JSONObject(payload)));
    }

    private static void refused(CommandDispatcher.Ack ack, String code) {
        assertEquals(ack.message, false, ack.ok);
        assertEquals(ack.message, code, ack.code);
        assertTrue("a refusal says why", ack.message != null && !ack.message.isEmpty());
    }

    private void ringing() {
        calls.onCallChanged(new NativeCall("n1", true, "+1", TelecomStates.RINGING, 0, null));
    }

    private void active() {
        ringing();
        calls.onCallIdKnown("n1", "call_1");
        calls.onCallChanged(new NativeCall("n1", true, "+1", TelecomStates.ACTIVE, 0, null));
    }

    @Test
    public void dialAsksThePlatformAndWaitsForTheCall() throws JSONException {
        assertTrue(CommandDispatcher.isDialable("+4930123,,42#"));
        CommandDispatcher.Ack ack = send("dial", "call_1", "{\"to\":\" +15550100 \"}");
        assertTrue(ack.ok);
        assertEquals(Collections.singletonList("dial +15550100"), telephony.asked);
        refused(send("dial", "call_2", "{\"to\":\"+1\"}"), "DEVICE_BUSY");
    }

    @Test
    public void dialRefusals() throws JSONException {
        refused(send("dial", "call_1", "{}"), "BAD_COMMAND");
        refused(send("dial", "call_1", "{\"to\":42}"), "BAD_COMMAND");
        refused(send("dial", "", "{\"to\":\"+1\"}"), "BAD_COMMAND");
        // Service codes would reach the phone's network: call forwarding, the IMEI, clearing forwards.
        for (String code : Arrays.asList("**21*0015551234567#", "*#06#", "##002#", "#31#0151", "0151#", "+*1")) {
            refused(send("dial", "call_1", "{\"to\":\"" + code + "\"}"), "BAD_COMMAND");
        }
        assertTrue("no service code reached the platform", telephony.asked.isEmpty());
        for (String code : Arrays.asList("NO_SIM", "NO_PERMISSION", "NOT_DEFAULT_DIALER")) {
            telephony.refuseNext = new CommandRefused(code, "no");
            refused(send("dial", "call_1", "{\"to\":\"+1\"}"), code);
        }
        telephony.throwNext = new SecurityException("CALL_PHONE revoked");
        refused(send("dial", "call_1", "{\"to\":\"+1\"}"), "PLATFORM_ERROR");
        assertTrue("nothing refused left the phone busy", !calls.busy());
    }

    @Test
    public void answerAndRejectOnlyARingingIncomingCall() throws JSONException {
        refused(send("answer", "call_1", null), "NO_CALL");
        ringing();
        // The ring's event.ack may not have named the call yet: a command for a callId means this call.
        assertTrue(send("answer", "call_1", null).ok);
        assertEquals(Collections.singletonList("answer n1"), telephony.asked);
        calls.onCallChanged(new NativeCall("n1", true, "+1", TelecomStates.ACTIVE, 0, null));
        refused(send("answer", "call_1", null), "INVALID_STATE");
        refused(send("reject", "call_1", null), "INVALID_STATE");
    }

    @Test
    public void rejectMarksTheCallSoItsEndIsCallRejected() throws JSONException {
        ringing();
        assertTrue(send("reject", "call_1", null).ok);
        assertTrue(calls.current().rejectRequested);
        assertEquals(Collections.singletonList("reject n1"), telephony.asked);
    }

    @Test
    public void holdUnholdHangupFollowTheState() throws JSONException {
        active();
        refused(send("unhold", "call_1", null), "INVALID_STATE");
        assertTrue(send("hold", "call_1", null).ok);
        calls.onCallChanged(new NativeCall("n1", true, "+1", TelecomStates.HOLDING, 0, null));
        refused(send("hold", "call_1", null), "INVALID_STATE");
        assertTrue(send("unhold", "call_1", null).ok);
        refused(send("hangup", "call_other", null), "NO_CALL");
        assertTrue(send("hangup", "call_1", null).ok);
        assertEquals(Arrays.asList("hold n1", "unhold n1", "hangup n1"), telephony.asked);
    }

    @Test
    public void dtmfPlaysEachDigitWithAGap() throws JSONException {
        ringing();
        refused(send("dtmf", "call_1", "{\"digits\":\"1\"}"), "INVALID_STATE");
        active();
        refused(send("dtmf", "call_1", "{\"digits\":\"12a\"}"), "BAD_COMMAND");
        refused(send("dtmf", "call_1", "{}"), "BAD_COMMAND");
        assertTrue(send("dtmf", "call_1", "{\"digits\":\"1#\"}").ok);
        assertEquals(Collections.singletonList("tone 1"), telephony.asked);
        clock.advance(DtmfPlayer.TONE_MS);
        assertEquals(Arrays.asList("tone 1", "stop tone"), telephony.asked);
        clock.advance(DtmfPlayer.GAP_MS - 1);
        assertEquals("the gap is silent", 2, telephony.asked.size());
        clock.advance(1);
        assertEquals(Arrays.asList("tone 1", "stop tone", "tone #"), telephony.asked);
        clock.advance(DtmfPlayer.TONE_MS + DtmfPlayer.GAP_MS);
        assertEquals(Arrays.asList("tone 1", "stop tone", "tone #", "stop tone"), telephony.asked);
        assertTrue(!dtmf.isPlaying());
    }

    @Test
    public void hangupStopsTonesStillQueued() throws JSONException {
        active();
        assertTrue(send("dtmf", "call_1", "{\"digits\":\"123\"}").ok);
        assertTrue(send("hangup", "call_1", null).ok);
        clock.advance(5000);
        assertEquals(Arrays.asList("tone 1", "stop tone", "hangup n1"), telephony.asked);
    }

    @Test
    public void anUnknownActionIsABadCommand() throws JSONException {
        refused(send("transfer", "call_1", null), "BAD_COMMAND");
    }
}
