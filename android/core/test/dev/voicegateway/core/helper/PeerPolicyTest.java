package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Who may use the helper's socket, by uid, and which messages each may send. */
public class PeerPolicyTest {
    private final PeerPolicy policy = new PeerPolicy(10234, "dev.voicegateway.app");

    @Test
    public void onlyTheAppsOwnUidIsTheApp() {
        assertEquals(PeerPolicy.Role.APP, policy.roleOf(10234, null));
        assertEquals("another app", PeerPolicy.Role.REFUSED, policy.roleOf(10235, null));
        assertEquals("the same app in a second user's profile is another uid", PeerPolicy.Role.REFUSED, policy.roleOf(1010234, null));
        assertEquals("system", PeerPolicy.Role.REFUSED, policy.roleOf(1000, null));
    }

    @Test
    public void theAppsUidInAnotherAppsProcessIsRefused() {
        assertEquals(PeerPolicy.Role.APP, policy.roleOf(10234, "dev.voicegateway.app"));
        assertEquals(PeerPolicy.Role.APP, policy.roleOf(10234, "dev.voicegateway.app:helper"));
        // Our app was removed and Android gave its uid to the next one installed.
        assertEquals(PeerPolicy.Role.REFUSED, policy.roleOf(10234, "com.example.other"));
        assertEquals(PeerPolicy.Role.REFUSED, policy.roleOf(10234, "dev.voicegateway.appx"));
    }

    @Test
    public void theShellAndRootMayOnlyStopOrReplaceTheHelper() {
        assertEquals(PeerPolicy.Role.ADMIN, policy.roleOf(2000, null));
        assertEquals(PeerPolicy.Role.ADMIN, policy.roleOf(0, null));
        assertTrue(PeerPolicy.allows(PeerPolicy.Role.ADMIN, HelperMessage.REPLACE));
        assertTrue(PeerPolicy.allows(PeerPolicy.Role.ADMIN, HelperMessage.SHUTDOWN));
        assertTrue(PeerPolicy.allows(PeerPolicy.Role.ADMIN, HelperMessage.PING));
        assertFalse("the shell cannot listen to the call", PeerPolicy.allows(PeerPolicy.Role.ADMIN, HelperMessage.START_CAPTURE));
        assertFalse(PeerPolicy.allows(PeerPolicy.Role.ADMIN, HelperMessage.AUDIO));
        assertFalse(PeerPolicy.allows(PeerPolicy.Role.REFUSED, HelperMessage.HELLO));
        for (int type : new int[] {HelperMessage.START_CAPTURE, HelperMessage.AUDIO, HelperMessage.SHUTDOWN, HelperMessage.REPLACE}) {
            assertTrue(PeerPolicy.allows(PeerPolicy.Role.APP, type));
        }
    }

    @Test
    public void theAppTrustsOnlyAHelperRunningAsTheShellOrRoot() {
        assertTrue(PeerPolicy.isHelper(2000));
        assertTrue(PeerPolicy.isHelper(0));
        assertFalse("an app squatting the abstract name", PeerPolicy.isHelper(10999));
    }

    @Test(expected = IllegalArgumentException.class)
    public void anAppUidBelowTheAppRangeIsAMistake() {
        new PeerPolicy(2000, "dev.voicegateway.app");
    }
}
