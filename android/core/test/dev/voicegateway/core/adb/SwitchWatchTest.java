package dev.voicegateway.core.adb;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The switch's observer starts the helper for the person's change, never for the app's own writes. */
public class SwitchWatchTest {
    @Test
    public void thePersonTurningItOnStartsTheHelperOnceNeeded() {
        SwitchWatch w = new SwitchWatch();
        assertTrue(w.shouldStart(1000, true, false, true));
        assertFalse("turned off", w.shouldStart(1000, true, false, false));
        assertFalse("not paired", w.shouldStart(1000, false, false, true));
        assertFalse("already running", w.shouldStart(1000, true, true, true));
    }

    @Test
    public void theAppsOwnWritesDuringAndJustAfterARunAreIgnored() {
        SwitchWatch w = new SwitchWatch();
        w.runStarted();
        // The run turned it on: the observer hears it while the run goes on.
        assertFalse(w.shouldStart(2000, true, false, true));
        w.runEnded(3000);
        // The run failed and turned it off; a late notice of its "on" must not start another run.
        assertFalse(w.shouldStart(3000 + SwitchWatch.OWN_WRITE_MS - 1, true, false, true));
        // Later the person turns it on by hand.
        assertTrue(w.shouldStart(3000 + SwitchWatch.OWN_WRITE_MS, true, false, true));
        w.ownWrite(10000);
        assertFalse(w.shouldStart(10001, true, false, true));
    }
}
