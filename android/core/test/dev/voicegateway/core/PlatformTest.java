package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.audio.AudioCapabilities;
import java.io.File;
import java.nio.file.Files;
import java.util.Random;
import org.json.JSONObject;
import org.junit.Test;

/** Reconnect backoff, health reports and the private file storage. */
public class PlatformTest {
    @Test
    public void backoffDoublesToTheCapWithJitterInTheUpperHalf() {
        Random r = new Random(7);
        for (int i = 0; i < 200; i++) {
            long first = Backoff.delayMs(1, 1000, 30000, r);
            assertTrue("first " + first, first >= 500 && first <= 1000);
            long third = Backoff.delayMs(3, 1000, 30000, r);
            assertTrue("third " + third, third >= 2000 && third <= 4000);
            long late = Backoff.delayMs(40, 1000, 30000, r);
            assertTrue("capped " + late, late >= 15000 && late <= 30000);
        }
        // Two attempts later the delay is never shorter, whatever the jitter.
        assertTrue(Backoff.delayMs(3, 1000, 30000, new Random(1)) >= Backoff.delayMs(1, 1000, 30000, new Random(2)));
    }

    @Test
    public void healthHoldsWhatThePhoneKnowsWithinTheSpecsBounds() {
        DeviceStatus status = status(140, null, "satellite", 9, "Carrier");
        JSONObject h = HealthReport.build(status, new DeviceInfo("1.2.3", "14", "Pixel 8"), Protocol.AUDIO_PAIRING_REQUIRED, null, 0);
        assertEquals(100, h.optInt("battery"));
        assertEquals(4, h.optInt("signal"));
        assertFalse("unknown charging is left out", h.has("charging"));
        assertFalse("a network the spec does not name is left out", h.has("network"));
        assertEquals("pairing_required", h.optString("audio"));
        assertFalse("no helper ever ran: its capabilities are unknown", h.has("audioCapabilities"));
        assertEquals("1.2.3", h.optString("appVersion"));
        assertEquals("14", h.optString("android"));
        assertEquals("Pixel 8", h.optString("model"));
        assertEquals("1970-01-01T00:00:00.000Z", h.optString("reportedAt"));
    }

    @Test
    public void healthCarriesTheHelpersCapabilitiesWithTheRateOnlyWhenItCaptures() throws Exception {
        DeviceStatus unknown = status(null, null, null, null, null);
        DeviceInfo info = new DeviceInfo("1.2.3", "13", "Pixel 6");
        JSONObject listenOnly = HealthReport.build(unknown, info, Protocol.AUDIO_RUNNING,
                new AudioCapabilities(true, false, AudioCapabilities.VOICE_DOWNLINK, 48000), 0);
        assertEquals("{\"capture\":true,\"inject\":false,\"method\":\"voice_downlink\",\"sampleRate\":48000}",
                listenOnly.getJSONObject("audioCapabilities").toString());
        JSONObject none = HealthReport.build(unknown, info, Protocol.AUDIO_STOPPED, AudioCapabilities.NOTHING, 0);
        assertEquals("{\"capture\":false,\"inject\":false,\"method\":\"none\"}", none.getJSONObject("audioCapabilities").toString());
        assertEquals(AudioCapabilities.NOTHING, AudioCapabilities.fromJson(none.getJSONObject("audioCapabilities")));
    }

    private static DeviceStatus status(final Integer battery, final Boolean charging, final String network, final Integer signal, final String carrier) {
        return new DeviceStatus() {
            public Integer battery() {
                return battery;
            }

            public Boolean charging() {
                return charging;
            }

            public String network() {
                return network;
            }

            public Integer signal() {
                return signal;
            }

            public String carrier() {
                return carrier;
            }
        };
    }

    @Test
    public void fileStorageReplacesWholeDocuments() throws Exception {
        File dir = Files.createTempDirectory("storage").toFile();
        FileStorage s = new FileStorage(new File(dir, "nested"));
        assertNull(s.read("outbox.json"));
        s.write("outbox.json", "[1]");
        s.write("outbox.json", "[1,2]");
        assertEquals("[1,2]", s.read("outbox.json"));
        assertFalse("no temporary file is left", new File(dir, "nested/outbox.json.tmp").exists());
        s.delete("outbox.json");
        s.delete("outbox.json");
        assertNull(s.read("outbox.json"));
    }

    @Test(expected = IllegalArgumentException.class)
    public void fileStorageRefusesNamesThatLeaveItsDirectory() throws Exception {
        new FileStorage(Files.createTempDirectory("storage").toFile()).write("../escape", "x");
    }
}
