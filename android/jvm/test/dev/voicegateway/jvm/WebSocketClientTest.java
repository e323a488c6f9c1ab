package dev.voicegateway.jvm;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.voicegateway.core.TlsConfig;
import dev.voicegateway.core.ws.HandshakeException;
import dev.voicegateway.core.ws.WebSocketClient;
import java.net.URI;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.Test;

/**
 * The core's RFC 6455 client against real servers that the Node test (test/android/junit.test.ts)
 * starts: an echo server on `ws`, a server refusing the upgrade, a raw TCP server that breaks the
 * protocol, and a `wss` server with a self-signed certificate for "localhost".
 */
public class WebSocketClientTest {
    private static final Map<String, String> NO_HEADERS = Collections.emptyMap();

    private static String env(String name) {
        String v = System.getenv(name);
        assertNotNull(name + " is set by test/android/junit.test.ts (run the JUnit tests with npm test)", v);
        return v;
    }

    /** Everything a client's listener heard, in order. */
    static final class Heard implements WebSocketClient.Listener {
        final LinkedBlockingQueue<Object> items = new LinkedBlockingQueue<Object>();
        volatile int closeCode;
        volatile String closeReason;
        volatile Exception closeError;
        final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

        @Override
        public void onText(WebSocketClient ws, String text) {
            items.add(text);
        }

        @Override
        public void onBinary(WebSocketClient ws, byte[] data) {
            items.add(data);
        }

        @Override
        public void onPong(WebSocketClient ws) {
            items.add("<pong>");
        }

        @Override
        public void onClose(WebSocketClient ws, int code, String reason, Exception error) {
            closeCode = code;
            closeReason = reason;
            closeError = error;
            closed.countDown();
        }

        Object next() throws InterruptedException {
            Object o = items.poll(5, TimeUnit.SECONDS);
            assertNotNull("nothing heard within 5 s", o);
            return o;
        }

        void awaitClose() throws InterruptedException {
            assertTrue("no close within 5 s", closed.await(5, TimeUnit.SECONDS));
        }
    }

    private static WebSocketClient open(String url, Heard heard) throws Exception {
        WebSocketClient ws = WebSocketClient.connect(URI.create(url), NO_HEADERS, Tls.config(null), new WebSocketClient.Options());
        ws.start(heard);
        return ws;
    }

    @Test
    public void echoesTextAndBinaryOfEverySize() throws Exception {
        Heard heard = new Heard();
        WebSocketClient ws = open(env("WS_ECHO_URL"), heard);
        ws.sendText("héllo ✓");
        assertEquals("héllo ✓", heard.next());
        for (int size : new int[] {0, 1, 125, 126, 640, 65535, 65536, 200000}) {
            byte[] data = new byte[size];
            for (int i = 0; i < size; i++) data[i] = (byte) (i * 31);
            WebSocketClient.Options o = new WebSocketClient.Options();
            assertTrue(size <= o.maxQueuedAudioBytes ? ws.sendBinary(data) : ws.sendText(new String(new char[size]).replace('\0', 'x')));
            Object back = heard.next();
            if (size <= o.maxQueuedAudioBytes) assertArrayEquals("binary of " + size, data, (byte[]) back);
            else assertEquals("text of " + size, size, ((String) back).length());
        }
        ws.close(1000, "done");
        heard.awaitClose();
        assertEquals(1000, heard.closeCode);
        assertNull(heard.closeError);
    }

    @Test
    public void joinsAFragmentedMessageAndAnswersPings() throws Exception {
        Heard heard = new Heard();
        WebSocketClient ws = open(env("WS_ECHO_URL"), heard);
        ws.sendText("fragment");
        assertEquals("hello, fragmented world", heard.next());
        ws.sendText("ping-me");
        assertEquals("pong-received", heard.next());
        ws.ping();
        assertEquals("<pong>", heard.next());
        ws.close(1000, "");
        heard.awaitClose();
    }

    @Test
    public void theServersCloseCodeAndReasonReachTheListenerAndOursReachTheServer() throws Exception {
        Heard heard = new Heard();
        WebSocketClient ws = open(env("WS_ECHO_URL"), heard);
        ws.sendText("close-4001");
        heard.awaitClose();
        assertEquals(4001, heard.closeCode);
        assertEquals("revoked", heard.closeReason);
        assertNull(heard.closeError);

        Heard second = new Heard();
        WebSocketClient closer = open(env("WS_ECHO_URL") + "?id=closer", second);
        closer.close(4321, "phone stops");
        second.awaitClose();
        Heard third = new Heard();
        WebSocketClient asker = open(env("WS_ECHO_URL"), third);
        // The server may hear the close a moment after the client is done: ask until it has.
        String seen = "none";
        for (int i = 0; i < 50 && seen.equals("none"); i++) {
            asker.sendText("last-close closer");
            seen = (String) third.next();
            if (seen.equals("none")) Thread.sleep(20);
        }
        assertEquals("4321 phone stops", seen);
        asker.close(1000, "");
    }

    @Test
    public void refusesInvalidUtf8AndOversizedMessagesWithTheRightCodes() throws Exception {
        Heard heard = new Heard();
        WebSocketClient ws = open(env("WS_ECHO_URL"), heard);
        ws.sendText("bad-utf8");
        heard.awaitClose();
        assertEquals(1007, heard.closeCode);

        Heard big = new Heard();
        WebSocketClient.Options small = new WebSocketClient.Options();
        small.maxMessageBytes = 1000;
        WebSocketClient ws2 = WebSocketClient.connect(URI.create(env("WS_ECHO_URL")), NO_HEADERS, Tls.config(null), small);
        ws2.start(big);
        ws2.sendText("send-2000");
        big.awaitClose();
        assertEquals(1009, big.closeCode);
    }

    @Test
    public void aMaskedFrameFromTheServerIsAProtocolError() throws Exception {
        Heard heard = new Heard();
        open(env("WS_RAW_URL"), heard);
        heard.awaitClose();
        assertEquals(1002, heard.closeCode);
    }

    @Test
    public void aRefusedUpgradeCarriesItsStatusAndBody() throws Exception {
        try {
            WebSocketClient.connect(URI.create(env("WS_REFUSE_URL")), Collections.singletonMap("Authorization", "Bearer nope"),
                    Tls.config(null), new WebSocketClient.Options());
            fail("upgrade accepted");
        } catch (HandshakeException e) {
            assertEquals(401, e.status);
            assertTrue(e.body, e.body.contains("UNAUTHORIZED"));
        }
    }

    @Test
    public void wssChecksTheCertificateAndTheHostName() throws Exception {
        String port = env("WSS_PORT");
        TlsConfig trusting = Tls.config(env("WSS_TRUST"));
        Heard heard = new Heard();
        WebSocketClient ws = WebSocketClient.connect(URI.create("wss://localhost:" + port + "/"), NO_HEADERS, trusting, new WebSocketClient.Options());
        ws.start(heard);
        ws.sendText("over TLS");
        assertEquals("over TLS", heard.next());
        ws.close(1000, "");
        heard.awaitClose();

        try {
            WebSocketClient.connect(URI.create("wss://127.0.0.1:" + port + "/"), NO_HEADERS, trusting, new WebSocketClient.Options());
            fail("a certificate for localhost was accepted for 127.0.0.1");
        } catch (SSLPeerUnverifiedException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("127.0.0.1"));
        }
        try {
            WebSocketClient.connect(URI.create("wss://localhost:" + port + "/"), NO_HEADERS, Tls.config(null), new WebSocketClient.Options());
            fail("an untrusted certificate was accepted");
        } catch (javax.net.ssl.SSLHandshakeException e) {
            // expected: the self-signed certificate is not among the JVM's trusted roots
        }
    }

    @Test
    public void abortReturnsAtOnceWhileATlsWriteIsStuck() throws Exception {
        Heard heard = new Heard();
        WebSocketClient ws = WebSocketClient.connect(URI.create("wss://localhost:" + env("WSS_PORT") + "/stall"), NO_HEADERS,
                Tls.config(env("WSS_TRUST")), new WebSocketClient.Options());
        ws.start(heard);
        char[] chunk = new char[128 * 1024];
        java.util.Arrays.fill(chunk, 'x');
        String text = new String(chunk);
        // The server reads nothing: fill the kernel's buffers until the writer is blocked in a TLS write.
        long deadline = System.nanoTime() + 30000000000L;
        int stuck = 0;
        while (stuck < 10 && System.nanoTime() < deadline) {
            if (ws.queuedBytes() < 512 * 1024) {
                ws.sendText(text);
                stuck = 0;
            } else {
                Thread.sleep(50);
                stuck++;
            }
        }
        assertTrue("the writer never blocked", stuck >= 10);
        long t0 = System.nanoTime();
        ws.abort();
        long tookMs = (System.nanoTime() - t0) / 1000000L;
        assertTrue("abort took " + tookMs + " ms", tookMs < 2000);
        heard.awaitClose();
        assertEquals(1006, heard.closeCode);
    }

    @Test
    public void audioBeyondASecondWaitingIsDroppedNotQueued() throws Exception {
        Heard heard = new Heard();
        WebSocketClient.Options o = new WebSocketClient.Options();
        WebSocketClient ws = WebSocketClient.connect(URI.create(env("WS_ECHO_URL")), NO_HEADERS, Tls.config(null), o);
        // Not started: nothing is written, so the queue fills as it would behind a stalled network.
        byte[] frame = new byte[640];
        int accepted = 0;
        for (int i = 0; i < 100; i++) if (ws.sendBinary(frame)) accepted++;
        assertTrue("accepted " + accepted, accepted > 0 && accepted < 100);
        assertEquals(100 - accepted, ws.droppedFrames());
        assertTrue(ws.queuedBytes() <= o.maxQueuedAudioBytes);
        ws.start(heard);
        ws.close(1000, "");
        heard.awaitClose();
    }

    /**
     * A host name whose first address is dead (127.0.0.2: the echo server listens on 127.0.0.1
     * only, so the first attempt is refused) still reaches the gateway through its second address.
     */
    @Test
    public void triesEveryAddressTheHostNameHas() throws Exception {
        URI echo = URI.create(env("WS_ECHO_URL"));
        final java.util.List<String> asked = new java.util.ArrayList<String>();
        WebSocketClient.Options options = new WebSocketClient.Options();
        options.resolver = new WebSocketClient.Resolver() {
            @Override
            public java.net.InetAddress[] resolve(String host) throws java.net.UnknownHostException {
                asked.add(host);
                return new java.net.InetAddress[] {
                    java.net.InetAddress.getByAddress(host, new byte[] {127, 0, 0, 2}),
                    java.net.InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}),
                };
            }
        };
        URI named = URI.create("ws://gateway.example:" + echo.getPort() + echo.getPath());
        Heard heard = new Heard();
        WebSocketClient ws = WebSocketClient.connect(named, NO_HEADERS, Tls.config(null), options);
        ws.start(heard);
        ws.sendText("through the second address");
        assertEquals("through the second address", heard.next());
        assertEquals(Collections.singletonList("gateway.example"), asked);
        ws.close(WebSocketClient.NORMAL, "done");
        heard.awaitClose();

        // Every address dead: the failure is the connection's, not a silent success.
        options.resolver = new WebSocketClient.Resolver() {
            @Override
            public java.net.InetAddress[] resolve(String host) throws java.net.UnknownHostException {
                return new java.net.InetAddress[] {java.net.InetAddress.getByAddress(host, new byte[] {127, 0, 0, 2})};
            }
        };
        try {
            WebSocketClient.connect(named, NO_HEADERS, Tls.config(null), options);
            fail("connected to a dead address");
        } catch (java.net.ConnectException expected) {
            // refused, as it should be
        }
    }

    /** The binder sees each socket before it connects, with the address it is for. */
    @Test
    public void theBinderChoosesTheNetworkOfEachSocketBeforeItConnects() throws Exception {
        final java.util.List<String> bound = new java.util.ArrayList<String>();
        WebSocketClient.Options options = new WebSocketClient.Options();
        options.binder = new WebSocketClient.SocketBinder() {
            @Override
            public void bind(java.net.Socket socket, java.net.InetAddress target) {
                bound.add(target.getHostAddress() + (socket.isConnected() ? " connected" : " unconnected"));
            }
        };
        Heard heard = new Heard();
        WebSocketClient ws = WebSocketClient.connect(URI.create(env("WS_ECHO_URL")), NO_HEADERS, Tls.config(null), options);
        ws.start(heard);
        ws.sendText("bound");
        assertEquals("bound", heard.next());
        assertEquals(Collections.singletonList("127.0.0.1 unconnected"), bound);
        ws.close(WebSocketClient.NORMAL, "done");
        heard.awaitClose();
    }

    /** Which gateway addresses are on the LAN (bound to the Wi-Fi even without internet). */
    @Test
    public void lanAddressesAreThePrivateAndLinkLocalRanges() throws Exception {
        String[] lan = {"10.1.2.3", "172.16.0.1", "172.31.255.254", "192.168.1.20", "169.254.10.1", "fe80::1", "fd12:3456::1"};
        String[] not = {"8.8.8.8", "172.32.0.1", "100.64.0.1", "127.0.0.1", "::1", "2001:db8::1", "192.169.0.1"};
        for (String a : lan) assertTrue(a, WebSocketClient.isLanAddress(java.net.InetAddress.getByName(a)));
        for (String a : not) assertTrue(a, !WebSocketClient.isLanAddress(java.net.InetAddress.getByName(a)));
    }
}
