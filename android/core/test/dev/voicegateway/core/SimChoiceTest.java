package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.junit.Test;

/** The SIM of a call (phone protocol extension 1.4): account choice, the deadline of "ask every time", dial with sim, health. */
public class SimChoiceTest {
    private static final List<PhoneAccounts.Account> TWO = Arrays.asList(
            new PhoneAccounts.Account("acc-0", 0, true), new PhoneAccounts.Account("acc-1", 1, true));
    private static final List<String> BOTH = Arrays.asList("acc-0", "acc-1");

    @Test
    public void theAccountOfASlotIsTheUsableOneOfThatSlot() {
        assertEquals("acc-1", PhoneAccounts.forSlot(TWO, 1));
        assertNull(PhoneAccounts.forSlot(TWO, 2));
        List<PhoneAccounts.Account> second = Arrays.asList(new PhoneAccounts.Account("acc-0", 0, true), new PhoneAccounts.Account("acc-1", 1, false));
        assertNull("an unusable SIM is no choice", PhoneAccounts.forSlot(second, 1));
    }

    @Test
    public void withNoSimTheSuggestedAccountComesFirstThenTheDefaultThenTheFirstUsable() {
        assertEquals("acc-1", PhoneAccounts.choose(BOTH, Collections.singletonList("acc-1"), "acc-0", TWO));
        assertEquals("acc-0", PhoneAccounts.choose(BOTH, Collections.<String>emptyList(), "acc-0", TWO));
        assertEquals("acc-1", PhoneAccounts.choose(BOTH, null, "acc-1", TWO));
        assertEquals("acc-0", PhoneAccounts.choose(BOTH, null, null, TWO));
        // A suggestion Telecom does not offer, or an unusable default, is passed over.
        assertEquals("acc-1", PhoneAccounts.choose(Collections.singletonList("acc-1"), Collections.singletonList("acc-0"), "acc-0", TWO));
        List<PhoneAccounts.Account> firstGone = Arrays.asList(new PhoneAccounts.Account("acc-0", 0, false), new PhoneAccounts.Account("acc-1", 1, true));
        assertEquals("acc-1", PhoneAccounts.choose(BOTH, null, "acc-0", firstGone));
        assertNull("nothing offered: nothing chosen", PhoneAccounts.choose(Collections.<String>emptyList(), null, "acc-0", TWO));
    }

    private static final class Recorder implements AccountSelection.Platform {
        final List<String> done = new ArrayList<String>();

        @Override
        public void select(String nativeCallId, String accountId) {
            done.add("select " + nativeCallId + " " + accountId);
        }

        @Override
        public void giveUp(String nativeCallId, String reason) {
            done.add("giveUp " + nativeCallId + " " + reason);
        }
    }

    @Test
    public void aWaitingCallGetsAnAccountAtOnceAndNoDeadlineOnceSettled() {
        ManualClock clock = new ManualClock();
        Recorder platform = new Recorder();
        AccountSelection selection = new AccountSelection(clock, 10000, platform);
        selection.waiting("n1", null, BOTH, Collections.singletonList("acc-1"), "acc-0", TWO);
        assertEquals(Collections.singletonList("select n1 acc-1"), platform.done);
        selection.settled("n1");
        clock.advance(60000);
        assertEquals(1, platform.done.size());
        assertEquals(0, selection.waitingCount());
    }

    @Test
    public void theSlotAskedForWinsOverTheSuggestion() {
        Recorder platform = new Recorder();
        new AccountSelection(new ManualClock(), 10000, platform).waiting("n1", Integer.valueOf(0), BOTH, Collections.singletonList("acc-1"), "acc-1", TWO);
        assertEquals(Collections.singletonList("select n1 acc-0"), platform.done);
    }

    @Test
    public void aCallNoAccountCanBeChosenForEndsAtTheDeadlineWithItsCause() {
        ManualClock clock = new ManualClock();
        Recorder platform = new Recorder();
        AccountSelection selection = new AccountSelection(clock, 10000, platform);
        List<PhoneAccounts.Account> none = Arrays.asList(new PhoneAccounts.Account("acc-0", 0, false), new PhoneAccounts.Account("acc-1", 1, false));
        selection.waiting("n1", null, BOTH, null, null, none);
        // The same call reported again does not push its deadline back.
        clock.advance(6000);
        selection.waiting("n1", null, BOTH, null, null, none);
        assertTrue(platform.done.isEmpty());
        clock.advance(4000);
        assertEquals(1, platform.done.size());
        assertTrue(platform.done.get(0), platform.done.get(0).startsWith("giveUp n1 " + AccountSelection.NOT_CHOSEN + ":"));
        assertEquals(0, selection.waitingCount());
    }

    @Test
    public void healthListsTheSimsOnceEachAndOnlyWhenThePlatformCanChoose() throws JSONException {
        DeviceStatus unknown = new DeviceStatus() {
            @Override public Integer battery() { return null; }
            @Override public Boolean charging() { return null; }
            @Override public String network() { return null; }
            @Override public Integer signal() { return null; }
            @Override public String carrier() { return null; }
        };
        DeviceInfo info = new DeviceInfo("1.2.3", "14", "Pixel 8");
        JSONObject without = HealthReport.build(unknown, info, Protocol.AUDIO_STOPPED, null, 0);
        assertFalse(without.has("sims"));
        List<SimCard> sims = Arrays.asList(new SimCard(0, "Telekom", "+4915112345678", true, true), new SimCard(1, "Vodafone", null, false, true),
                new SimCard(1, "twice", null, false, true), new SimCard(9, "out of range", null, false, true));
        JSONArray list = HealthReport.build(unknown, info, Protocol.AUDIO_STOPPED, null, sims, 0).getJSONArray("sims");
        assertEquals(2, list.length());
        assertEquals("{\"slot\":0,\"carrier\":\"Telekom\",\"number\":\"+4915112345678\",\"defaultForCalls\":true,\"usable\":true}".length(), list.getJSONObject(0).toString().length());
        assertEquals("Vodafone", list.getJSONObject(1).getString("carrier"));
        assertFalse(list.getJSONObject(1).has("number"));
        assertEquals(0, HealthReport.build(unknown, info, Protocol.AUDIO_STOPPED, null, Collections.<SimCard>emptyList(), 0).getJSONArray("sims").length());
    }

    private static CommandDispatcher dispatcher(Telephony telephony) {
        ManualClock clock = new ManualClock();
        CallRegistry calls = new CallRegistry(new MemoryStorage(), clock, telephony, new CallRegistry.Events() {
            @Override
            public void onEvent(JSONObject event, CallRegistry.TrackedCall call) {
            }
        }, Log.NONE);
        calls.restore(Collections.<NativeCall>emptyList());
        return new CommandDispatcher(telephony, calls, new DtmfPlayer(telephony, clock, Log.NONE), Log.NONE);
    }

    private static CommandDispatcher.Ack dial(CommandDispatcher d, String payload) throws JSONException {
        return d.handle(new Command("c1", "call_1", "dial", new JSONObject(payload)));
    }

    @Test
    public void dialWithSimGoesOutOnThatSlotAndAnUnusableSlotIsRefused() throws JSONException {
        FakeDualSim phone = new FakeDualSim();
        phone.sims.add(new SimCard(0, "Telekom", null, true, true));
        phone.sims.add(new SimCard(1, "Vodafone", null, false, false));
        CommandDispatcher.Ack refused = dial(dispatcher(phone), "{\"to\":\"+15550100\",\"sim\":1}");
        assertFalse(refused.ok);
        assertEquals(Protocol.SIM_UNAVAILABLE, refused.code);
        CommandDispatcher.Ack bad = dial(dispatcher(phone), "{\"to\":\"+15550100\",\"sim\":\"1\"}");
        assertEquals(Protocol.BAD_COMMAND, bad.code);
        assertTrue(dial(dispatcher(phone), "{\"to\":\"+15550100\",\"sim\":0}").ok);
        assertTrue(dial(dispatcher(phone), "{\"to\":\"+15550101\"}").ok);
        assertEquals(Arrays.asList("dial +15550100 sim 0", "dial +15550101"), phone.plain.asked);
    }

    @Test
    public void aPhoneThatCannotChooseRefusesSimRatherThanDialFromAnotherSim() throws JSONException {
        FakeTelephony phone = new FakeTelephony();
        CommandDispatcher.Ack ack = dial(dispatcher(phone), "{\"to\":\"+15550100\",\"sim\":0}");
        assertEquals(Protocol.SIM_UNAVAILABLE, ack.code);
        assertTrue(phone.asked.isEmpty());
    }

    @Test
    public void simStateUnknownDoesNotRefuseTheCallButAbsentAndLockedDo() {
        assertNull("dual-SIM 'ask every time' reports UNKNOWN: Telecom decides", SimStates.problem(SimStates.UNKNOWN));
        assertNull(SimStates.problem(SimStates.READY));
        for (int refused : new int[] {SimStates.ABSENT, SimStates.PIN_REQUIRED, SimStates.PUK_REQUIRED, SimStates.NETWORK_LOCKED, 6}) {
            assertTrue(String.valueOf(refused), SimStates.problem(refused) != null);
        }
    }
}
