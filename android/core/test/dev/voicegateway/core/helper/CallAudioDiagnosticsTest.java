package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.charset.Charset;
import java.util.Arrays;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** The self-test's view of the call audio, and its bound of one helper message. */
public class CallAudioDiagnosticsTest {
    private static final Charset UTF8 = Charset.forName("UTF-8");

    private static int bytes(JSONObject o) {
        return o.toString().getBytes(UTF8).length;
    }

    @Test
    public void saysThePlatformThePlanTheModeTheAttemptsAndTheEnvironment() throws Exception {
        CallAudioDiagnostics d = new CallAudioDiagnostics();
        d.platform(33, Boolean.TRUE, CaptureChoice.choose(33, Boolean.TRUE, new int[] {16000}));
        d.environmentStep(ShellSetup.CONFIGURATION_CONTROLLER, "filled", null);
        d.environmentStep(ShellSetup.INITIAL_APPLICATION, "failed", "NoSuchFieldException: mInitialApplication");
        d.audioMode(CallAudioOpener.MODE_IN_CALL);
        d.failed("call_interception@16000", "", new IllegalStateException("not in call"), 0);
        d.opened("call_interception@16000", "", 50);
        d.failed("injection", "", new SecurityException(), 50);

        JSONObject o = d.toJson();
        assertEquals(33, o.getInt("sdk"));
        assertTrue(o.getBoolean("interceptable"));
        assertEquals("[\"call_interception@16000\",\"voice_downlink@16000\",\"injection\"]", o.getJSONArray("plan").toString());
        assertEquals("IN_CALL", o.getString("audioMode"));
        JSONArray a = o.getJSONArray("attempts");
        assertEquals(3, a.length());
        JSONObject first = a.getJSONObject(0);
        assertEquals("call_interception@16000", first.getString("way"));
        assertEquals("failed", first.getString("result"));
        assertEquals("IllegalStateException", first.getString("exception"));
        assertEquals("not in call", first.getString("message"));
        assertEquals(0, first.getLong("waitedMs"));
        assertEquals("opened", a.getJSONObject(1).getString("result"));
        assertEquals("an opened way has no exception", "", a.getJSONObject(1).getString("exception"));
        assertEquals("", a.getJSONObject(1).getString("message"));
        assertEquals(50, a.getJSONObject(1).getLong("waitedMs"));
        assertEquals("a null message is empty", "", a.getJSONObject(2).getString("message"));
        JSONArray env = o.getJSONArray("environment");
        assertEquals("{\"step\":\"ConfigurationController\",\"result\":\"filled\"}", env.getJSONObject(0).toString());
        assertEquals("NoSuchFieldException: mInitialApplication", env.getJSONObject(1).getString("message"));
        assertFalse(o.has("attemptsDropped"));
    }

    @Test
    public void beforeAnythingHappenedTheUnknownsAreNull() throws Exception {
        CallAudioDiagnostics d = new CallAudioDiagnostics();
        d.platform(31, null, CaptureChoice.choose(31, null, new int[] {48000}));
        JSONObject o = d.toJson();
        assertTrue(o.isNull("interceptable"));
        assertTrue(o.isNull("audioMode"));
        assertEquals("[\"voice_downlink@48000\"]", o.getJSONArray("plan").toString());
        assertEquals(0, o.getJSONArray("attempts").length());
    }

    @Test
    public void alwaysFitsInOneHelperMessageCuttingMessagesThenOldAttempts() throws Exception {
        CallAudioDiagnostics d = new CallAudioDiagnostics();
        d.platform(34, Boolean.TRUE, CaptureChoice.choose(34, Boolean.TRUE, new int[] {16000}));
        char[] long1 = new char[5000];
        Arrays.fill(long1, 'é'); // two bytes each in UTF-8
        String huge = new String(long1);
        for (int i = 0; i < 25; i++) d.failed("call_interception@16000", "", new IllegalStateException(huge), i * 50);
        d.environmentStep(ShellSetup.INITIAL_APPLICATION, "failed", huge);

        JSONObject o = d.toJson();
        assertTrue(bytes(o) + " bytes", bytes(o) <= CallAudioDiagnostics.MAX_BYTES);
        JSONArray a = o.getJSONArray("attempts");
        assertTrue("kept what fits: " + a.length(), a.length() >= 10);
        String m = a.getJSONObject(0).getString("message");
        assertTrue(m.length() <= CallAudioDiagnostics.MESSAGE_CHARS);
        assertTrue(m, m.isEmpty() || m.endsWith("…"));
        assertEquals("the newest is last", 24 * 50, a.getJSONObject(a.length() - 1).getLong("waitedMs"));
        assertEquals("the first five went on adding, the rest to fit", 25 - a.length(), o.getInt("attemptsDropped"));
    }

    @Test
    public void keepsTheLastTwentyAttempts() {
        CallAudioDiagnostics d = new CallAudioDiagnostics();
        for (int i = 0; i < 30; i++) d.opened("voice_downlink@16000", "builder", i);
        assertEquals(CallAudioDiagnostics.KEPT_ATTEMPTS, d.attempts().size());
        assertEquals(10, d.attempts().get(0).waitedMs);
        assertEquals(10, d.toJson().optInt("attemptsDropped"));
        assertEquals("builder", d.toJson().optJSONArray("attempts").optJSONObject(0).optString("via"));
    }

    @Test
    public void cutsWithAnEllipsis() {
        assertEquals("abc", CallAudioDiagnostics.cut("abc", 3));
        assertEquals("ab…", CallAudioDiagnostics.cut("abcd", 3));
        assertEquals("", CallAudioDiagnostics.cut("abcd", 0));
    }

    @Test
    public void theShellSetupPerApiLevel() {
        for (int sdk = 26; sdk <= 30; sdk++) {
            assertEquals("no ConfigurationController before Android 12", Arrays.asList("mBoundApplication", "systemContext", "mInitialApplication"),
                    ShellSetup.steps(sdk));
        }
        for (int sdk = 31; sdk <= 35; sdk++) {
            assertEquals("the controller before the system context", Arrays.asList("ConfigurationController", "mBoundApplication", "systemContext",
                    "mInitialApplication"), ShellSetup.steps(sdk));
        }
    }
}
