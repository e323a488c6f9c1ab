package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.AudioPort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** The self-test's report from a fake probe, and when it runs by itself (after each start of the helper). */
public class SelfTestTest {
    private final ManualClock clock = new ManualClock();
    private final List<JSONObject> sent = new ArrayList<JSONObject>();
    private final FakeProbe probe = new FakeProbe();
    private final FakeAudio audio = new FakeAudio();
    private final SelfTest test = new SelfTest(probe, audio, clock, new SelfTest.Sender() {
        @Override
        public void send(JSONObject report) {
            sent.add(report);
        }
    }, Log.NONE);

    static final class FakeProbe implements SelfTest.Probe {
        Boolean role = Boolean.TRUE;
        final Map<String, Boolean> permissions = new LinkedHashMap<String, Boolean>();
        boolean explode;

        FakeProbe() {
            permissions.put("android.permission.CALL_PHONE", Boolean.TRUE);
            permissions.put("android.permission.READ_PHONE_STATE", Boolean.FALSE);
        }

        @Override
        public Boolean dialerRoleHeld() {
            if (explode) throw new SecurityException("role service gone");
            return role;
        }

        @Override
        public Map<String, Boolean> permissions() {
            return permissions;
        }

        @Override
        public Boolean batteryExempt() {
            return null;
        }

        @Override
        public Boolean foregroundServiceRunning() {
            return Boolean.TRUE;
        }

        @Override
        public SelfTest.Platform platform() {
            return new SelfTest.Platform(34, "14", "Google", "google", "Pixel 7\u0007", "1.2.3");
        }
    }

    static final class FakeAudio implements AudioPort {
        String state = Protocol.AUDIO_STOPPED;

        @Override
        public void setListener(Listener listener) {
        }

        @Override
        public String state() {
            return state;
        }

        @Override
        public boolean canInject() {
            return false;
        }

        @Override
        public AudioCapabilities capabilities() {
            return new AudioCapabilities(true, false, AudioCapabilities.VOICE_DOWNLINK, 48000);
        }

        @Override
        public void startCall() {
        }

        @Override
        public void stopCall() {
        }

        @Override
        public void play(byte[] frame) {
        }
    }

    private static PhoneStatus status(PhoneStatus.Link link, String audio, String error) {
        return new PhoneStatus(link, "http://gw.example", "phone-1", error, 0, 0, null, audio, false, false, 0);
    }

    private static JSONObject check(JSONObject report, String name) throws Exception {
        JSONArray checks = report.getJSONArray("checks");
        for (int i = 0; i < checks.length(); i++) {
            if (checks.getJSONObject(i).getString("name").equals(name)) return checks.getJSONObject(i);
        }
        throw new AssertionError("no check " + name + " in " + report);
    }

    @Test
    public void onDemandItReportsEachCheckThePlatformAndTheSocket() throws Exception {
        test.onStatus(status(PhoneStatus.Link.WAITING_TO_RETRY, Protocol.AUDIO_STOPPED, "The gateway refused the connection"));
        test.run();
        clock.runPending();
        assertEquals(1, sent.size());
        JSONObject r = sent.get(0);
        assertEquals("manual", r.getString("trigger"));
        assertEquals("2023-11-14T22:13:20.000Z", r.getString("generatedAt"));
        assertEquals("1.2.3", r.getJSONObject("app").getString("version"));
        JSONObject device = r.getJSONObject("device");
        assertEquals(34, device.getInt("sdk"));
        assertEquals("14", device.getString("release"));
        assertEquals("Google", device.getString("manufacturer"));
        assertEquals("Pixel 7 ", device.getString("model"));
        assertTrue(check(r, "dialer_role").getBoolean("ok"));
        assertTrue(check(r, "permission:android.permission.CALL_PHONE").getBoolean("ok"));
        assertFalse(check(r, "permission:android.permission.READ_PHONE_STATE").getBoolean("ok"));
        assertTrue(check(r, "battery_exemption").isNull("ok"));
        assertTrue(check(r, "foreground_service").getBoolean("ok"));
        JSONObject socket = check(r, "gateway_socket");
        assertFalse(socket.getBoolean("ok"));
        assertEquals("waiting_to_retry: The gateway refused the connection", socket.getString("detail"));
        assertEquals("waiting_to_retry", r.getJSONObject("gateway").getString("link"));
        JSONObject helper = r.getJSONObject("helper");
        assertEquals("stopped", helper.getString("state"));
        assertEquals("voice_downlink", helper.getJSONObject("capabilities").getString("method"));
        assertTrue(helper.isNull("uid"));
        assertFalse(check(r, "helper").getBoolean("ok"));
        assertEquals(r.toString(), test.lastReport().toString());
    }

    @Test
    public void itRunsByItselfOnceEachTimeTheHelperStartsRunning() throws Exception {
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_STOPPED, null));
        clock.advance(SelfTest.SETTLE_MS * 5);
        assertEquals("nothing while the helper does not run", 0, sent.size());

        audio.state = Protocol.AUDIO_RUNNING;
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_RUNNING, null));
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_RUNNING, null));
        clock.advance(SelfTest.SETTLE_MS - 1);
        assertEquals("it waits for the helper's own report to come", 0, sent.size());
        clock.advance(1);
        assertEquals(1, sent.size());
        assertEquals("helper_started", sent.get(0).getString("trigger"));
        assertTrue(check(sent.get(0), "helper").getBoolean("ok"));
        assertTrue(check(sent.get(0), "gateway_socket").getBoolean("ok"));

        clock.advance(SelfTest.SETTLE_MS * 5);
        assertEquals("still running: no new report", 1, sent.size());
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_STOPPED, null));
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_RUNNING, null));
        clock.advance(SelfTest.SETTLE_MS);
        assertEquals("started again: reported again", 2, sent.size());
    }

    @Test
    public void theHelpersStartNamesTheReportEvenWhenItsOwnReportCameFirst() throws Exception {
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_STOPPED, null));
        clock.runPending();
        test.run();
        clock.runPending();
        sent.clear();
        // The order a phone sees: the helper's DIAGNOSTICS (its own thread) before the port's turn to running.
        test.cue("helper_report");
        audio.state = Protocol.AUDIO_RUNNING;
        test.onStatus(status(PhoneStatus.Link.CONNECTED, Protocol.AUDIO_RUNNING, null));
        clock.advance(SelfTest.SETTLE_MS);
        assertEquals(1, sent.size());
        assertEquals("helper_started", sent.get(0).getString("trigger"));
    }

    @Test
    public void aProbeThatThrowsIsReportedNotLost() throws Exception {
        probe.explode = true;
        test.run();
        clock.runPending();
        assertEquals(1, sent.size());
        JSONObject failed = check(sent.get(0), "self_test");
        assertFalse(failed.getBoolean("ok"));
        assertTrue(failed.getString("detail"), failed.getString("detail").contains("SecurityException: role service gone"));
    }
}
