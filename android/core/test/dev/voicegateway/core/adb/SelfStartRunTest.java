package dev.voicegateway.core.adb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.adb.SelfStartRun.Outcome;
import dev.voicegateway.core.adb.SelfStartRun.Result;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import org.junit.Test;

/** One start through Wireless debugging: each way it ends, and the setting always put back as it was. */
public class SelfStartRunTest {
    /** A phone as a script: what discovery finds, what adbd does, whether the helper announces itself. */
    static class Phone implements SelfStartRun.Platform {
        boolean wifi = true;
        boolean setting;
        boolean writable = true;
        boolean usbDebugging = true;
        /** Android flips the setting back to 0 at once (an untrusted network, AdbDebuggingManager). */
        boolean networkAllowed = true;
        boolean remembered;
        final LinkedList<Integer> ports = new LinkedList<Integer>();
        final List<Integer> listening = new ArrayList<Integer>();
        boolean keyKnown = true;
        boolean helperAnswers = true;
        final List<String> steps = new ArrayList<String>();

        @Override
        public boolean onWifi() {
            return wifi;
        }

        @Override
        public boolean wirelessDebuggingOn() {
            return setting;
        }

        @Override
        public boolean setWirelessDebugging(boolean on) {
            steps.add("set " + on);
            if (!writable) return false;
            setting = on && networkAllowed;
            return true;
        }

        @Override
        public boolean usbDebuggingOn() {
            return usbDebugging;
        }

        @Override
        public void rememberTurnedOn(boolean on) {
            remembered = on;
        }

        @Override
        public int connectPort(long timeoutMs, int stalePort) {
            if (!setting) return -1;
            while (!ports.isEmpty()) {
                int p = ports.removeFirst();
                if (p != stalePort) return p;
            }
            return -1;
        }

        @Override
        public String shell(int port, String command) throws IOException {
            steps.add("shell " + port + " " + command);
            if (!listening.contains(port)) throw new ConnectException("Connection refused");
            if (!keyKnown) throw new AdbConnection.KeyRefused("refused", null);
            return "";
        }

        @Override
        public boolean awaitHelper(long timeoutMs) {
            return helperAnswers;
        }
    }

    private static Result run(Phone phone, boolean mayTurnOn) throws InterruptedException {
        return new SelfStartRun(phone, new SelfStartRun.Timeouts()).run("start-helper", mayTurnOn);
    }

    @Test
    public void withTheGrantItTurnsWirelessDebuggingOnStartsTheHelperAndTurnsItOffAgain() throws Exception {
        Phone phone = new Phone();
        phone.ports.add(41234);
        phone.listening.add(41234);
        Result r = run(phone, true);
        assertEquals(Outcome.STARTED, r.outcome);
        assertTrue(r.restored);
        assertEquals("[set true, shell 41234 start-helper, set false]", phone.steps.toString());
        assertFalse("off again, as it was", phone.setting);
        assertFalse(phone.remembered);
    }

    @Test
    public void withUsbDebuggingOffAStartedHelperIsNotKilledByTurningWirelessDebuggingOff() throws Exception {
        Phone phone = new Phone();
        phone.usbDebugging = false;
        phone.ports.add(41234);
        phone.listening.add(41234);
        Result r = run(phone, true);
        assertEquals(Outcome.STARTED, r.outcome);
        assertFalse(r.restored);
        assertEquals("[set true, shell 41234 start-helper]", phone.steps.toString());
        assertTrue("left on: adbd, and the helper in its cgroup, keep running", phone.setting);
        assertFalse("no restore owed by the next run", phone.remembered);
        assertTrue(r.message.contains("stays on"));
    }

    @Test
    public void withUsbDebuggingOffAFailedRunStillTurnsItOff() throws Exception {
        Phone phone = new Phone();
        phone.usbDebugging = false;
        phone.ports.add(41234);
        phone.listening.add(41234);
        phone.helperAnswers = false;
        Result r = run(phone, true);
        assertEquals(Outcome.HELPER_SILENT, r.outcome);
        assertTrue(r.restored);
        assertFalse(phone.setting);
    }

    @Test
    public void whenTheUserHadItOnItIsLeftOn() throws Exception {
        Phone phone = new Phone();
        phone.setting = true;
        phone.ports.add(41234);
        phone.listening.add(41234);
        Result r = run(phone, true);
        assertEquals(Outcome.STARTED, r.outcome);
        assertFalse(r.restored);
        assertTrue(phone.setting);
        assertEquals("[shell 41234 start-helper]", phone.steps.toString());
    }

    @Test
    public void withoutTheGrantItAsksForOneTapAndTouchesNothing() throws Exception {
        Phone phone = new Phone();
        Result r = run(phone, false);
        assertEquals(Outcome.WIRELESS_DEBUGGING_OFF, r.outcome);
        assertTrue(r.message.contains("Wireless debugging is off"));
        assertTrue(phone.steps.isEmpty());
        // A grant the platform does not honour (the write refused) ends the same way, remembering nothing.
        Phone refusing = new Phone();
        refusing.writable = false;
        assertEquals(Outcome.WIRELESS_DEBUGGING_OFF, run(refusing, true).outcome);
        assertFalse(refusing.remembered);
    }

    @Test
    public void offWifiNothingIsTried() throws Exception {
        Phone phone = new Phone();
        phone.wifi = false;
        Result r = run(phone, true);
        assertEquals(Outcome.NOT_ON_WIFI, r.outcome);
        assertTrue(r.message.contains("Wi-Fi"));
        assertTrue(phone.steps.isEmpty());
    }

    @Test
    public void aNetworkAndroidDoesNotAllowIsNamedAndTheSettingRestored() throws Exception {
        Phone phone = new Phone();
        phone.networkAllowed = false;
        Result r = run(phone, true);
        assertEquals(Outcome.NETWORK_NOT_ALLOWED, r.outcome);
        assertTrue(r.message.contains("Always allow on this network"));
        assertEquals("[set true, set false]", phone.steps.toString());
        assertFalse(phone.remembered);
    }

    @Test
    public void aForgottenPairingIsNamedAndTheSettingRestored() throws Exception {
        Phone phone = new Phone();
        phone.ports.add(41234);
        phone.listening.add(41234);
        phone.keyKnown = false;
        Result r = run(phone, true);
        assertEquals(Outcome.PAIRING_FORGOTTEN, r.outcome);
        assertTrue(r.message.contains("Pair again"));
        assertFalse(phone.setting);
    }

    @Test
    public void aStalePortIsSkippedForTheNewOneAndTwoStalePortsSayThePortChanged() throws Exception {
        Phone phone = new Phone();
        phone.setting = true;
        phone.ports.add(40000);
        phone.ports.add(40000);
        phone.ports.add(41000);
        phone.listening.add(41000);
        assertEquals(Outcome.STARTED, run(phone, true).outcome);
        assertEquals("[shell 40000 start-helper, shell 41000 start-helper]", phone.steps.toString());

        Phone moving = new Phone();
        moving.setting = true;
        moving.ports.add(40000);
        moving.ports.add(40001);
        Result r = run(moving, true);
        assertEquals(Outcome.PORT_CHANGED, r.outcome);
        assertTrue(r.message.contains("port changed"));

        Phone gone = new Phone();
        gone.setting = true;
        gone.ports.add(40000);
        assertEquals("refused, then nothing new announced", Outcome.PORT_CHANGED, run(gone, true).outcome);
    }

    @Test
    public void onButNotAnnouncedAndAHelperThatNeverAnswersAreNamed() throws Exception {
        Phone silent = new Phone();
        silent.setting = true;
        assertEquals(Outcome.NOT_ANNOUNCED, run(silent, true).outcome);

        Phone mute = new Phone();
        mute.ports.add(41234);
        mute.listening.add(41234);
        mute.helperAnswers = false;
        Result r = run(mute, true);
        assertEquals(Outcome.HELPER_SILENT, r.outcome);
        assertFalse("restored even so", mute.setting);
    }

    @Test
    public void otherConnectionErrorsCarryTheirReason() throws Exception {
        Phone phone = new Phone() {
            @Override
            public String shell(int port, String command) throws IOException {
                throw new IOException("TLS 1.3 is unavailable");
            }
        };
        phone.setting = true;
        phone.ports.add(41234);
        Result r = run(phone, true);
        assertEquals(Outcome.CONNECT_FAILED, r.outcome);
        assertTrue(r.message.contains("TLS 1.3 is unavailable"));
    }
}
