package dev.voicegateway.jvm;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The host's RFC 6125 name check. */
public class HostnameCheckTest {
    @Test
    public void exactNamesMatchCaseInsensitively() {
        assertTrue(HostnameCheck.nameMatches("gw.example.org", "GW.Example.org"));
        assertTrue(HostnameCheck.nameMatches("gw.example.org.", "gw.example.org"));
        assertFalse(HostnameCheck.nameMatches("gw.example.org", "example.org"));
        assertFalse(HostnameCheck.nameMatches("", "example.org"));
    }

    @Test
    public void aWildcardIsOneWholeLeftMostLabel() {
        assertTrue(HostnameCheck.nameMatches("gw.example.org", "*.example.org"));
        assertFalse("not two labels", HostnameCheck.nameMatches("a.gw.example.org", "*.example.org"));
        assertFalse("not the bare domain", HostnameCheck.nameMatches("example.org", "*.example.org"));
        assertFalse("not a partial label", HostnameCheck.nameMatches("gw.example.org", "g*.example.org"));
        assertFalse("not a whole top-level domain", HostnameCheck.nameMatches("example.org", "*.org"));
    }
}
