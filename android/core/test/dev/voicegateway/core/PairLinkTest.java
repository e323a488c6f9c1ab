package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.junit.Test;

/** Pairing links from a QR code, and addresses typed by hand: what is accepted, and what a person is told otherwise. */
public class PairLinkTest {
    @Test
    public void readsTheGatewaysPairUri() throws PairLink.Invalid {
        PairLink l = PairLink.parse("voicegateway://pair?url=http%3A%2F%2F192.168.1.20%3A8080&code=E1J0425QHT");
        assertEquals("http://192.168.1.20:8080", l.gateway.base());
        assertEquals("E1J0425QHT", l.code);
        assertEquals("ws://192.168.1.20:8080/v1/phone", l.gateway.ws("/v1/phone").toString());
    }

    @Test
    public void keepsAPathPrefixAndPairsHttpsWithWss() throws PairLink.Invalid {
        PairLink l = PairLink.parse("  VoiceGateway://pair/?code=ABC&url=https%3A%2F%2Fgw.example.org%2Fvoice%2F  ");
        assertEquals("https://gw.example.org/voice", l.gateway.base());
        assertEquals("wss://gw.example.org/voice/v1/phone", l.gateway.ws("/v1/phone").toString());
        assertEquals("https://gw.example.org/voice/v1/phone/pair", l.gateway.http("/v1/phone/pair"));
    }

    private static void invalid(String link, String expected) {
        try {
            PairLink.parse(link);
            fail("accepted " + link);
        } catch (PairLink.Invalid e) {
            assertTrue("'" + e.getMessage() + "' should mention '" + expected + "'", e.getMessage().contains(expected));
        }
    }

    @Test
    public void explainsWhatIsWrongWithABadLink() {
        invalid(null, "No pairing link");
        invalid("https://example.com/?url=x&code=y", "not a Voice Gateway pairing code");
        invalid("voicegateway://pair", "no url and code");
        invalid("voicegateway://pair?code=ABC", "no gateway address");
        invalid("voicegateway://pair?url=http%3A%2F%2Fh%3A1", "no code");
        invalid("voicegateway://pair?url=ftp%3A%2F%2Fh&code=A", "http:// or https://");
        invalid("voicegateway://pair?url=http%3A%2F%2F&code=A", "not a valid address");
        invalid("voicegateway://pair?url=http%3A%2F%2F%2Fpath&code=A", "no host name");
        invalid("voicegateway://pair?url=%E0%A4%A&code=A", "damaged");
        invalid("voicegateway://pair?url=http%3A%2F%2Fh&code=A%3Cscript%3E", "only letters");
        invalid("voicegateway://pair?url=http%3A%2F%2Fuser%3Apw%40h&code=A", "user name or password");
    }

    @Test
    public void acceptsACodeTypedWithSpacesOrDashes() throws PairLink.Invalid {
        PairLink l = PairLink.typed(" http://10.0.0.2:8080/ ", " e1j0-425q ht ");
        assertEquals("http://10.0.0.2:8080", l.gateway.base());
        assertEquals("e1j0-425q ht", l.code);
    }

    @Test
    public void asksForTheSchemeAndTheCode() {
        try {
            PairLink.typed("192.168.1.20:8080", "ABC");
            fail("accepted an address without http://");
        } catch (PairLink.Invalid e) {
            assertTrue(e.getMessage(), e.getMessage().contains("http://"));
        }
        try {
            PairLink.typed("http://h:1", "  ");
            fail("accepted an empty code");
        } catch (PairLink.Invalid e) {
            assertTrue(e.getMessage(), e.getMessage().contains("Enter the pairing code"));
        }
    }

    @Test
    public void credentialsKeepTheTokenOutOfTheirText() {
        Credentials c = new Credentials(GatewayAddress.parse("http://h:1"), "phone-ab12", "secret-token-value", "2026-01-01T00:00:00.000Z");
        assertTrue(!c.toString().contains("secret-token-value"));
        Credentials back = Credentials.fromJson(c.toJson());
        assertEquals("phone-ab12", back.deviceId);
        assertEquals("secret-token-value", back.deviceToken);
        assertEquals("http://h:1", back.gateway.base());
        assertEquals(null, Credentials.fromJson("{\"deviceId\":\"x\"}"));
        assertEquals(null, Credentials.fromJson("not json"));
    }
}
