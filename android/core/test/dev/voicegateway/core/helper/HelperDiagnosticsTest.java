package dev.voicegateway.core.helper;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.MemoryStorage;
import dev.voicegateway.core.ThreadClock;
import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.FrameAdapter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Test;

/**
 * The helper's DIAGNOSTICS message (type 0x04): its bytes, its bound, and the app's port keeping the
 * last one with the uid its connection reported, from the helper's own service over the loopback.
 */
public class HelperDiagnosticsTest {
    private static final int APP_UID = 10123;
    private ServerSocket server;
    private HelperService service;
    private HelperAudioPort port;

    @After
    public void tearDown() throws Exception {
        if (port != null) port.close();
        if (service != null) service.stop("test over");
        if (server != null) server.close();
    }

    @Test
    public void theMessageIsTheJsonAsItIs() throws Exception {
        HelperMessage m = HelperMessage.diagnostics("{\"a\":\"é\"}");
        byte[] expected = {0x04, 0x00, 0x0a, '{', '"', 'a', '"', ':', '"', (byte) 0xc3, (byte) 0xa9, '"', '}'};
        assertArrayEquals(expected, HelperCodec.encode(m));
        assertEquals(m, HelperCodec.read(new ByteArrayInputStream(expected)));
        assertEquals("DIAGNOSTICS", HelperCodec.name(HelperMessage.DIAGNOSTICS));
    }

    @Test
    public void aReportOverTheBoundKeepsTheFirstAttemptsThatFit() throws Exception {
        JSONObject d = new JSONObject();
        d.put("sdk", 34);
        d.put("isPstnCallAudioInterceptable", false);
        d.put("log", repeat('x', 5000));
        JSONArray attempts = new JSONArray();
        for (int i = 0; i < 40; i++) {
            attempts.put(new JSONObject().put("way", "way-" + i).put("result", "failed").put("exception", "java.lang.SecurityException")
                    .put("message", repeat('m', 400)));
        }
        d.put("attempts", attempts);
        assertTrue(d.toString().length() > HelperCodec.MAX_PAYLOAD);

        String json = HelperCodec.diagnosticsJson(d);
        assertTrue(json.getBytes(StandardCharsets.UTF_8).length <= HelperCodec.MAX_PAYLOAD);
        JSONObject small = new JSONObject(json);
        assertTrue(small.getBoolean("truncated"));
        assertEquals(34, small.getInt("sdk"));
        assertTrue(!small.getBoolean("isPstnCallAudioInterceptable"));
        assertTrue("a long text is left out", !small.has("log"));
        JSONArray kept = small.getJSONArray("attempts");
        assertTrue(kept.length() > 3);
        assertEquals("way-0", kept.getJSONObject(0).getString("way"));
        assertEquals(301, kept.getJSONObject(0).getString("message").length());
        HelperCodec.encode(HelperMessage.diagnostics(json));

        JSONObject fits = new JSONObject().put("attempts", new JSONArray());
        assertEquals(fits.toString(), HelperCodec.diagnosticsJson(fits));
    }

    /** An engine whose capture fails, as a phone without the permission's would. */
    private static final class FailingEngine implements CallAudioEngine {
        final JSONArray attempts = new JSONArray();

        @Override
        public AudioCapabilities capabilities() {
            return new AudioCapabilities(true, false, AudioCapabilities.VOICE_DOWNLINK, 48000);
        }

        @Override
        public String note() {
            return "listen only";
        }

        @Override
        public synchronized JSONObject diagnostics() {
            try {
                return new JSONObject().put("sdk", 34).put("attempts", new JSONArray(attempts.toString()));
            } catch (org.json.JSONException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public synchronized Running startCapture(FrameAdapter.FrameSink sink, Ended ended) throws Exception {
            attempts.put(new JSONObject().put("way", "VOICE_DOWNLINK").put("result", "failed").put("exception", "java.lang.SecurityException")
                    .put("message", "CAPTURE_AUDIO_OUTPUT"));
            throw new SecurityException("CAPTURE_AUDIO_OUTPUT");
        }

        @Override
        public Injection startInjection() throws Exception {
            throw new Exception("listen only");
        }
    }

    @Test
    public void thePortKeepsTheLastReportAndTheHelpersUid() throws Exception {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        service = new HelperService(new PeerPolicy(APP_UID, "dev.voicegateway.app"), endpoint(server), new FailingEngine(), Log.NONE);
        Thread serving = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    service.run();
                } catch (IOException e) {
                    // stopped
                }
            }
        });
        serving.setDaemon(true);
        serving.start();

        HelperAudioPort.Config config = new HelperAudioPort.Config();
        config.retryMs = 50;
        port = new HelperAudioPort(link(server.getLocalPort()), new MemoryStorage(), new ThreadClock("vg-helper-test", Log.NONE), Log.NONE, config);
        assertEquals(-1, port.helperUid());
        assertNull(port.lastDiagnostics());
        final AtomicInteger heard = new AtomicInteger();
        port.setDiagnosticsListener(new Runnable() {
            @Override
            public void run() {
                heard.incrementAndGet();
            }
        });
        port.start();
        await("the helper's first report", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return heard.get() >= 1;
            }
        });
        assertEquals(2000, port.helperUid());
        assertEquals(0, port.lastDiagnostics().getJSONArray("attempts").length());
        assertEquals(34, port.lastDiagnostics().getInt("sdk"));

        // A call: the capture attempt fails, and the helper says how.
        port.startCall();
        await("the report after the capture attempt", new Callable<Boolean>() {
            @Override
            public Boolean call() throws Exception {
                JSONObject d = port.lastDiagnostics();
                return d != null && d.getJSONArray("attempts").length() == 1;
            }
        });
        JSONObject attempt = port.lastDiagnostics().getJSONArray("attempts").getJSONObject(0);
        assertEquals("java.lang.SecurityException", attempt.getString("exception"));
        assertEquals("failed", attempt.getString("result"));
        assertTrue(heard.get() >= 2);

        // The helper stops: its last word stays for the self-test.
        service.stop("test");
        await("the port noticing", new Callable<Boolean>() {
            @Override
            public Boolean call() {
                return !port.state().equals("running");
            }
        });
        assertEquals(1, port.lastDiagnostics().getJSONArray("attempts").length());
        assertEquals(2000, port.helperUid());
    }

    // ---- loopback TCP standing in for the phone's socket; the link says the peer is the shell ----

    private static HelperLink link(final int tcpPort) {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                return connection(new Socket(InetAddress.getLoopbackAddress(), tcpPort), PeerPolicy.SHELL_UID);
            }
        };
    }

    private static HelperEndpoint endpoint(final ServerSocket server) {
        return new HelperEndpoint() {
            @Override
            public void listen() {
            }

            @Override
            public HelperLink.Connection accept() throws IOException {
                return connection(server.accept(), APP_UID);
            }

            @Override
            public void close() {
                try {
                    server.close();
                } catch (IOException e) {
                    // closed
                }
            }
        };
    }

    private static HelperLink.Connection connection(final Socket s, final int peerUid) {
        return new HelperLink.Connection() {
            @Override
            public InputStream input() throws IOException {
                return s.getInputStream();
            }

            @Override
            public OutputStream output() throws IOException {
                return s.getOutputStream();
            }

            @Override
            public int peerUid() {
                return peerUid;
            }

            @Override
            public String peerProcess() {
                return null;
            }

            @Override
            public void setReadTimeout(int ms) throws IOException {
                s.setSoTimeout(ms);
            }

            @Override
            public void close() {
                try {
                    s.close();
                } catch (IOException e) {
                    // closed
                }
            }
        };
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + 20000000000L;
        while (!condition.call()) {
            if (System.nanoTime() > end) throw new AssertionError("not within 20 s: " + what);
            Thread.sleep(10);
        }
    }

    private static String repeat(char c, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) b.append(c);
        return b.toString();
    }
}
