package dev.voicegateway.core.adb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.Test;

public class AdbDiscoveryTest {
    private static final Set<String> OWN = new HashSet<String>(Arrays.asList("192.168.1.23", "fe80::1"));

    @Test
    public void onlyOurOwnPhonesServiceCountsAndTheLatestPortWins() {
        AdbDiscovery.Service otherPhone = new AdbDiscovery.Service("_adb-tls-connect._tcp.", "192.168.1.40", 40001);
        AdbDiscovery.Service oursOld = new AdbDiscovery.Service("_adb-tls-connect._tcp.", "192.168.1.23", 37001);
        AdbDiscovery.Service oursNew = new AdbDiscovery.Service("_adb-tls-connect._tcp.", "192.168.1.23", 41234);
        AdbDiscovery.Service pairing = new AdbDiscovery.Service("_adb-tls-pairing._tcp.", "192.168.1.23", 38555);
        assertEquals(-1, AdbDiscovery.ownPort(Arrays.asList(otherPhone), AdbDiscovery.CONNECT_TYPE, OWN));
        assertEquals(41234, AdbDiscovery.ownPort(Arrays.asList(otherPhone, oursOld, pairing, oursNew), AdbDiscovery.CONNECT_TYPE, OWN));
        assertEquals(38555, AdbDiscovery.ownPort(Arrays.asList(otherPhone, oursOld, pairing, oursNew), AdbDiscovery.PAIRING_TYPE, OWN));
    }

    @Test
    public void pairingCodeIsSixDigitsAsTheDialogShowsThem() {
        assertEquals("482913", AdbDiscovery.pairingCode("482913"));
        assertEquals("482913", AdbDiscovery.pairingCode(" 482 913 "));
        assertEquals("482913", AdbDiscovery.pairingCode("482-913"));
        assertNull(AdbDiscovery.pairingCode("48291"));
        assertNull(AdbDiscovery.pairingCode("4829134"));
        assertNull(AdbDiscovery.pairingCode("48291a"));
        assertNull(AdbDiscovery.pairingCode(null));
    }
}
