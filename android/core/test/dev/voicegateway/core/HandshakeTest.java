package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.voicegateway.core.ws.Handshake;
import dev.voicegateway.core.ws.HandshakeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

/** The upgrade request and the checks of the server's answer (RFC 6455 section 4). */
public class HandshakeTest {
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";

    private static InputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    public void acceptKeyMatchesTheRfcExample() {
        assertEquals("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", Handshake.acceptFor(KEY));
    }

    @Test
    public void requestNamesPathQueryHostAndHeaders() {
        Map<String, String> headers = new LinkedHashMap<String, String>();
        headers.put("Authorization", "Bearer t0k3n");
        String req = Handshake.request(URI.create("ws://gw.example:8080/prefix/v1/phone?x=1"), KEY, headers);
        assertTrue(req, req.startsWith("GET /prefix/v1/phone?x=1 HTTP/1.1\r\nHost: gw.example:8080\r\n"));
        assertTrue(req.contains("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n"));
        assertTrue(req.contains("\r\nAuthorization: Bearer t0k3n\r\n"));
        assertTrue(req.endsWith("\r\n\r\n"));
        String def = Handshake.request(URI.create("wss://gw.example:443/v1/phone"), KEY, Collections.<String, String>emptyMap());
        assertTrue(def, def.contains("\r\nHost: gw.example\r\n"));
        String v6 = Handshake.request(URI.create("ws://[::1]:9000/"), KEY, Collections.<String, String>emptyMap());
        assertTrue(v6, v6.contains("\r\nHost: [::1]:9000\r\n"));
    }

    @Test(expected = IllegalArgumentException.class)
    public void refusesAHeaderThatWouldSplitTheRequest() {
        Handshake.request(URI.create("ws://h/"), KEY, Collections.singletonMap("Authorization", "Bearer x\r\nEvil: 1"));
    }

    @Test
    public void readsTheHeadAndLeavesTheFirstFrameInTheStream() throws IOException {
        InputStream in = stream("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\u0081\u0002hi");
        Handshake.Response res = Handshake.readResponse(in);
        assertEquals(101, res.status);
        Handshake.check(res, KEY, in);
        assertEquals(0x81, in.read());
    }

    private static void rejected(String response) throws IOException {
        InputStream in = stream(response);
        try {
            Handshake.check(Handshake.readResponse(in), KEY, in);
            fail("accepted: " + response);
        } catch (HandshakeException e) {
            throw e;
        } catch (IOException e) {
            // expected
        }
    }

    @Test
    public void rejectsAWrongOrIncompleteUpgrade() throws IOException {
        rejected("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: wrong=\r\n\r\n");
        rejected("HTTP/1.1 101 OK\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
        rejected("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n");
        rejected("SSH-2.0-OpenSSH\r\n\r\n");
        rejected("HTTP/1.1 101");
    }

    @Test
    public void aRefusalCarriesItsStatusAndErrorBody() throws IOException {
        String body = "{\"error\":{\"code\":\"UNAUTHORIZED\",\"message\":\"The device token is unknown or revoked\"}}";
        InputStream in = stream("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body + "trailing");
        try {
            Handshake.check(Handshake.readResponse(in), KEY, in);
            fail("401 accepted");
        } catch (HandshakeException e) {
            assertEquals(401, e.status);
            assertEquals(body, e.body);
        }
    }
}
