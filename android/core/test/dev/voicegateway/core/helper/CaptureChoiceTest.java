package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.audio.AudioCapabilities;
import org.junit.Test;

/** The capture and injection plan, one row of CaptureChoice's table after the other. */
public class CaptureChoiceTest {
    private static final int[] ALL_RATES = {8000, 16000, 48000};

    private static String plan(int sdk, Boolean interceptable, int... rates) {
        CaptureChoice.Plan p = CaptureChoice.choose(sdk, interceptable, rates);
        return p.capture + (p.inject ? " inject" : " listen-only");
    }

    @Test
    public void android8To10CannotCaptureAtAll() {
        for (int sdk = 26; sdk <= 29; sdk++) {
            CaptureChoice.Plan p = CaptureChoice.choose(sdk, null, ALL_RATES);
            assertTrue(p.capture.isEmpty());
            assertFalse(p.inject);
            assertEquals(AudioCapabilities.NOTHING, p.capabilities());
            assertTrue(p.note, p.note.contains("Android 10 and older"));
        }
    }

    @Test
    public void android11And12HearTheDownlinkButCannotSpeak() {
        for (int sdk = 30; sdk <= 32; sdk++) {
            assertEquals("[voice_downlink@16000] listen-only", plan(sdk, null, ALL_RATES));
            assertEquals("the answer of an API it does not have changes nothing", "[voice_downlink@16000] listen-only", plan(sdk, Boolean.TRUE, ALL_RATES));
        }
        CaptureChoice.Plan p = CaptureChoice.choose(31, null, ALL_RATES);
        assertEquals(new AudioCapabilities(true, false, "voice_downlink", 16000), p.capabilities());
        assertTrue(p.note.contains("listen only"));
    }

    @Test
    public void android13AndLaterInterceptWhereThePhoneAllowsIt() {
        for (int sdk : new int[] {33, 34, 35}) {
            assertEquals("[call_interception@16000, voice_downlink@16000] inject", plan(sdk, Boolean.TRUE, ALL_RATES));
            assertEquals("[voice_downlink@16000] listen-only", plan(sdk, Boolean.FALSE, ALL_RATES));
            assertEquals("unknown counts as no", "[voice_downlink@16000] listen-only", plan(sdk, null, ALL_RATES));
        }
        CaptureChoice.Plan p = CaptureChoice.choose(34, Boolean.TRUE, ALL_RATES);
        assertEquals(new AudioCapabilities(true, true, "call_interception", 16000), p.capabilities());
        assertEquals("", p.note);
        assertTrue(CaptureChoice.choose(34, Boolean.FALSE, ALL_RATES).note.contains("isPstnCallAudioInterceptable"));
    }

    @Test
    public void aPhoneWithout16kHzRecordsAt48ThenAt8AndTheFramesAreResampled() {
        assertEquals("[voice_downlink@48000] listen-only", plan(31, null, 8000, 48000));
        assertEquals("[voice_downlink@8000] listen-only", plan(31, null, 8000, 44100));
        assertEquals("the interception API is asked for 16 kHz itself", "[call_interception@16000, voice_downlink@48000] inject",
                plan(33, Boolean.TRUE, 48000));
    }

    @Test
    public void aPhoneThatRecordsAtNoUsableRateCannotHearTheCall() {
        CaptureChoice.Plan p = CaptureChoice.choose(31, null, new int[] {44100});
        assertTrue(p.capture.isEmpty());
        assertEquals(AudioCapabilities.NOTHING, p.capabilities());
        assertTrue(p.note, p.note.contains("none of 8, 16 and 48 kHz"));
        assertEquals("interception does not need AudioRecord's rates", "[call_interception@16000] inject", plan(33, Boolean.TRUE));
    }

    @Test
    public void onlyAndroid11OpensInsideTheShellWindowAndOnlyInterceptionWaitsForTheCallMode() {
        Boolean[] answers = {Boolean.TRUE, Boolean.FALSE, null};
        for (int sdk = 26; sdk <= 35; sdk++) {
            for (Boolean interceptable : answers) {
                CaptureChoice.Plan p = CaptureChoice.choose(sdk, interceptable, ALL_RATES);
                assertEquals("API " + sdk, sdk == 30, p.foregroundWindow);
                for (CaptureChoice.Option o : p.capture) {
                    assertEquals(o.toString(), o.method.equals(AudioCapabilities.CALL_INTERCEPTION), o.needsCallMode());
                }
                assertEquals("API " + sdk + " " + interceptable, sdk >= 33 && Boolean.TRUE.equals(interceptable), p.inject);
            }
        }
        assertFalse("nothing to open, no window", CaptureChoice.choose(30, null, new int[] {44100}).foregroundWindow);
    }
}
