package dev.voicegateway.jvm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.AccountSelection;
import dev.voicegateway.core.CommandRefused;
import dev.voicegateway.core.NativeCall;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.TelecomStates;
import dev.voicegateway.core.Telephony;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Test;

/** The JVM phone's simulated Telecom with two SIM accounts: dial from a slot, and "ask every time". */
public class SimulatedSimsTest {
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    private final LinkedBlockingQueue<NativeCall> changes = new LinkedBlockingQueue<NativeCall>();

    private SimulatedTelephony phone(long selectTimeoutMs) {
        SimulatedTelephony t = new SimulatedTelephony(executor, selectTimeoutMs);
        t.setOutcome(SimulatedTelephony.Outcome.MANUAL, 0);
        t.setListener(new Telephony.Listener() {
            @Override
            public void onCallChanged(NativeCall call) {
                changes.add(call);
            }
        });
        return t;
    }

    @After
    public void tearDown() {
        executor.shutdownNow();
    }

    /** The states the call goes through until {@code last}. */
    private List<String> statesUntil(int last) throws InterruptedException {
        List<String> seen = new ArrayList<String>();
        while (true) {
            NativeCall c = changes.poll(5, TimeUnit.SECONDS);
            if (c == null) throw new AssertionError("no state " + TelecomStates.name(last) + " after " + seen);
            seen.add(TelecomStates.name(c.state) + (c.disconnectReason != null ? " " + c.disconnectReason : ""));
            if (c.state == last) return seen;
        }
    }

    @Test
    public void reportsTwoSimsAndDialsFromTheSlotAskedFor() throws Exception {
        SimulatedTelephony t = phone(10000);
        assertEquals(2, t.sims().size());
        assertTrue(t.sims().get(0).defaultForCalls);
        t.dial("+15550100", 1);
        statesUntil(TelecomStates.DIALING);
        assertTrue(t.selections().toString(), t.selections().get(0).endsWith(" sim-1"));
    }

    @Test
    public void refusesASlotWithNoUsableSim() {
        SimulatedTelephony t = phone(10000);
        t.setSimUsable(1, false);
        for (int slot : new int[] {1, 5}) {
            try {
                t.dial("+15550100", slot);
                throw new AssertionError("dialled from slot " + slot);
            } catch (CommandRefused e) {
                assertEquals(Protocol.SIM_UNAVAILABLE, e.code);
            }
        }
        assertTrue(t.selections().isEmpty());
    }

    @Test
    public void askEveryTimeTakesTheSuggestionFromTheIntentExtras() throws Exception {
        SimulatedTelephony t = phone(10000);
        t.setDefaultSim(-1);
        t.setSuggestedSim(1);
        t.dial("+15550100");
        List<String> states = statesUntil(TelecomStates.DIALING);
        assertEquals("[SELECT_PHONE_ACCOUNT, CONNECTING, DIALING]", states.toString());
        // Telecom puts the offer in the intent extras; the call's extras stay empty.
        assertEquals(Collections.singletonList("sim-1"), t.intentExtras().get(SimulatedAccounts.EXTRA_SUGGESTED_PHONE_ACCOUNTS));
        assertTrue(t.detailsExtras().isEmpty());
        assertTrue(t.selections().toString(), t.selections().get(0).endsWith(" sim-1"));
    }

    @Test
    public void askEveryTimeWithNoSuggestionTakesTheFirstUsable() throws Exception {
        SimulatedTelephony t = phone(10000);
        t.setDefaultSim(-1);
        t.setSimUsable(0, false);
        t.dial("+15550100");
        statesUntil(TelecomStates.DIALING);
        assertTrue(t.selections().toString(), t.selections().get(0).endsWith(" sim-1"));
    }

    @Test
    public void aCallNoSimCanBeChosenForEndsWithTheDocumentedCause() throws Exception {
        SimulatedTelephony t = phone(200);
        t.setDefaultSim(-1);
        t.setSimUsable(0, false);
        t.setSimUsable(1, false);
        t.dial("+15550100");
        List<String> states = statesUntil(TelecomStates.DISCONNECTED);
        assertEquals("SELECT_PHONE_ACCOUNT", states.get(0));
        assertTrue(states.toString(), states.get(states.size() - 1).startsWith("DISCONNECTED " + AccountSelection.NOT_CHOSEN + ":"));
        assertTrue(t.calls().isEmpty());
    }
}
