package dev.voicegateway.core.adb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.adb.SelfStart.Action;
import dev.voicegateway.core.adb.SelfStart.Facts;
import org.junit.Test;

/** The flow without a computer, across a reboot, with and without WRITE_SECURE_SETTINGS. */
public class SelfStartTest {
    private static Facts fresh(int sdk, boolean grant) {
        return new Facts(sdk, false, false, grant, true, false, false, false);
    }

    @Test
    public void android11AndOlderKeepTheComputerPath() {
        Facts f = fresh(30, true);
        assertEquals(Action.COMPUTER_ONLY, SelfStart.next(f));
        assertEquals("pairing_required", SelfStart.health(f));
        assertTrue(SelfStart.advice(Action.COMPUTER_ONLY).contains("computer"));
    }

    @Test
    public void firstSetupPairsThenStartsThenNeedsNothing() {
        Facts f = fresh(34, false);
        assertEquals(Action.ASK_TO_PAIR, SelfStart.next(f));
        assertEquals("pairing_required", SelfStart.health(f));
        // The user had Wireless debugging open to pair: it is on.
        f = f.paired(true).wirelessDebugging(true, false);
        assertEquals("stopped", SelfStart.health(f));
        assertEquals(Action.CONNECT_AND_START, SelfStart.next(f));
        f = f.helperRunning(true);
        assertEquals("running", SelfStart.health(f));
        // The user turned it on, not us: we leave it on.
        assertEquals(Action.NOTHING, SelfStart.next(f));
    }

    @Test
    public void afterARebootWithTheGrantTheAppTurnsWirelessDebuggingOnAndOffItself() {
        Facts f = fresh(34, true).paired(true).helperRunning(true).rebooted();
        assertEquals("stopped", SelfStart.health(f));
        assertEquals(Action.TURN_ON_WIRELESS_DEBUGGING, SelfStart.next(f));
        f = f.wirelessDebugging(true, true);
        assertEquals(Action.CONNECT_AND_START, SelfStart.next(f));
        f = f.helperRunning(true);
        assertEquals(Action.TURN_OFF_WIRELESS_DEBUGGING, SelfStart.next(f));
        f = f.wirelessDebugging(false, false);
        assertEquals(Action.NOTHING, SelfStart.next(f));
        assertEquals("running", SelfStart.health(f));
    }

    @Test
    public void afterARebootWithoutTheGrantOneTapIsAsked() {
        Facts f = fresh(31, false).paired(true).helperRunning(true).rebooted();
        assertEquals(Action.NOTIFY_TURN_ON_WIRELESS_DEBUGGING, SelfStart.next(f));
        assertTrue(SelfStart.advice(SelfStart.next(f)).contains("one tap"));
        f = f.wirelessDebugging(true, false);
        assertEquals(Action.CONNECT_AND_START, SelfStart.next(f));
    }

    @Test
    public void offWifiItWaitsForWifiAndAForgottenPairingAsksAgain() {
        Facts f = fresh(34, true).paired(true).onWifi(false);
        assertEquals(Action.JOIN_WIFI, SelfStart.next(f));
        f = f.onWifi(true).wirelessDebugging(true, true);
        assertEquals(Action.CONNECT_AND_START, SelfStart.next(f));
        // adbd refused the key (AdbConnection.KeyRefused): the user forgot the pairing in the settings.
        f = f.paired(false);
        assertEquals(Action.ASK_TO_PAIR, SelfStart.next(f));
        assertEquals("pairing_required", SelfStart.health(f));
        // A helper that ran here before keeps health at stopped, as HelperAudioPort does.
        assertEquals("stopped", SelfStart.health(f.helperRunning(true).helperRunning(false)));
    }

    @Test
    public void theGrantTurnsWirelessDebuggingOnOnlyFromAndroid13() {
        // Android 12 with the grant: the one-tap notification, as without it (Shizuku starts on boot only from 13).
        Facts twelve = fresh(32, true).paired(true).helperRunning(true).rebooted();
        assertEquals(Action.NOTIFY_TURN_ON_WIRELESS_DEBUGGING, SelfStart.next(twelve));
        assertEquals(Action.TURN_ON_WIRELESS_DEBUGGING, SelfStart.next(fresh(33, true).paired(true)));
        assertEquals(false, SelfStart.mayTurnOnItself(34, false));
        assertEquals(true, SelfStart.mayTurnOnItself(33, true));
    }

    @Test
    public void aRunCutShortIsRestoredWhenTheHelperRunsAndNotBefore() {
        // The process died after turning Wireless debugging on: the next look turns it off once the helper runs.
        Facts f = fresh(34, true).paired(true).wirelessDebugging(true, true);
        assertEquals(Action.CONNECT_AND_START, SelfStart.next(f));
        assertEquals(Action.TURN_OFF_WIRELESS_DEBUGGING, SelfStart.next(f.helperRunning(true)));
    }
}
