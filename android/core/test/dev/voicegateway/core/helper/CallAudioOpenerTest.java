package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.voicegateway.core.audio.AudioCapabilities;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * The opener's rules run tick by tick against a scripted phone: the audio mode as a timeline, an
 * AudioManager that refuses as frameworks/base's does, and a clock moved only by the opener's own
 * sleeps.
 */
public class CallAudioOpenerTest {
    private static final int[] ALL_RATES = {8000, 16000, 48000};

    /** Time that moves only when the opener sleeps. */
    static final class FakeClock implements CallAudioOpener.Clock {
        long now;
        final List<Long> sleeps = new ArrayList<Long>();

        @Override
        public long nowMs() {
            return now;
        }

        @Override
        public void sleepMs(long ms) {
            sleeps.add(ms);
            now += ms;
        }
    }

    /** How one open behaves: returns a handle or throws. */
    interface Behaviour {
        String open(String way, boolean withoutBuilder, long now, int mode) throws Exception;
    }

    /** A phone: the audio mode changes at given times; every call is written to {@link #events}. */
    static final class FakePhone implements CallAudioOpener.Platform<String, String> {
        final FakeClock clock;
        final List<String> events = new ArrayList<String>();
        final List<long[]> modes = new ArrayList<long[]>();
        Behaviour capture;
        Behaviour injection;
        int modeReads;

        FakePhone(FakeClock clock, int initialMode) {
            this.clock = clock;
            modes.add(new long[] {0, initialMode});
        }

        FakePhone modeFrom(long ms, int mode) {
            modes.add(new long[] {ms, mode});
            return this;
        }

        int mode() {
            int m = CallAudioOpener.MODE_NORMAL;
            for (long[] change : modes) if (clock.now >= change[0]) m = (int) change[1];
            return m;
        }

        @Override
        public int audioMode() {
            modeReads++;
            return mode();
        }

        @Override
        public String openCapture(CaptureChoice.Option option, boolean withoutBuilder) throws Exception {
            events.add("open " + option + (withoutBuilder ? " fields" : "") + " @" + clock.now);
            return capture.open(option.toString(), withoutBuilder, clock.now, mode());
        }

        @Override
        public String openInjection() throws Exception {
            events.add("inject @" + clock.now);
            return injection.open("injection", false, clock.now, mode());
        }

        @Override
        public void showShellWindow() {
            events.add("show @" + clock.now);
        }

        @Override
        public void closeShellWindow() {
            events.add("close @" + clock.now);
        }
    }

    /** AudioManager's interception methods: IllegalStateException outside a call mode, Unsupported... when not interceptable. */
    static Behaviour audioManager(final boolean interceptable) {
        return new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                if (way.startsWith("voice_downlink")) return "record " + way;
                if (!CallAudioOpener.isCallMode(mode)) throw new IllegalStateException("not in call mode: " + mode);
                if (!interceptable) throw new UnsupportedOperationException("PSTN call audio interception not supported");
                return (way.equals("injection") ? "track " : "record ") + way;
            }
        };
    }

    private final FakeClock clock = new FakeClock();
    private final CallAudioDiagnostics diagnostics = new CallAudioDiagnostics();

    private CallAudioOpener<String, String> opener(int sdk, Boolean interceptable, FakePhone phone) {
        CaptureChoice.Plan plan = CaptureChoice.choose(sdk, interceptable, ALL_RATES);
        diagnostics.platform(sdk, interceptable, plan);
        return new CallAudioOpener<String, String>(plan, phone, clock, diagnostics);
    }

    private static String attempts(CallAudioDiagnostics d) {
        StringBuilder s = new StringBuilder();
        for (CallAudioDiagnostics.Attempt a : d.attempts()) {
            if (s.length() > 0) s.append(", ");
            s.append(a.way).append(a.via.isEmpty() ? "" : "/" + a.via).append(a.opened ? " opened" : " " + a.exception).append(" +").append(a.waitedMs);
        }
        return s.toString();
    }

    @Test
    public void android13WaitsForTelecomsInCallModeThenInterceptsAndInjects() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_NORMAL).modeFrom(730, CallAudioOpener.MODE_IN_CALL);
        phone.capture = audioManager(true);
        phone.injection = audioManager(true);
        CallAudioOpener<String, String> o = opener(33, Boolean.TRUE, phone);

        CallAudioOpener.Opened<String> opened = o.capture();
        assertEquals("record call_interception@16000", opened.capture);
        assertEquals("the first try is the first poll that sees IN_CALL", "call_interception@16000 opened +750", attempts(diagnostics));
        assertEquals("[open call_interception@16000 @750]", phone.events.toString());
        for (long s : clock.sleeps) assertTrue("polls every 50 ms at most: " + s, s <= CallAudioOpener.POLL_MS);
        assertEquals(new AudioCapabilities(true, true, "call_interception", 16000), o.capabilities());
        assertEquals("", o.note());

        assertEquals("the mode is already in call: no wait", "track injection", o.injection());
        assertEquals(750, clock.now);
        assertEquals("IN_CALL", diagnostics.toJson().getString("audioMode"));
    }

    @Test
    public void everyCallModeOfAudioManagerCountsAndNoOtherDoes() {
        // A SIM call's modes; IN_COMMUNICATION and COMMUNICATION_REDIRECT are VoIP's (CALL_REDIRECT_VOIP).
        int[] yes = {2, 4, 5};
        for (int m : yes) assertTrue(CallAudioDiagnostics.modeName(m), CallAudioOpener.isCallMode(m));
        int[] no = {-2, -1, 0, 1, 3, 6, 7};
        for (int m : no) assertFalse(String.valueOf(m), CallAudioOpener.isCallMode(m));
        assertEquals("CALL_SCREENING", CallAudioDiagnostics.modeName(4));
        assertEquals("COMMUNICATION_REDIRECT", CallAudioDiagnostics.modeName(6));
    }

    @Test
    public void aModeThatNeverComesIsTriedOnceAtTheDeadlineAndDoesNotTurnTheCallListenOnly() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_NORMAL);
        phone.capture = audioManager(true);
        CallAudioOpener<String, String> o = opener(34, Boolean.TRUE, phone);
        try {
            o.capture();
            fail("opened outside a call mode");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().contains("IllegalStateException: the audio mode was NORMAL after 2000 ms"));
        }
        assertEquals(CallAudioOpener.MODE_WAIT_MS, clock.now);
        assertEquals("one try, at the deadline; never VOICE_DOWNLINK", "[open call_interception@16000 @2000]", phone.events.toString());
        assertEquals("call_interception@16000 IllegalStateException +2000", attempts(diagnostics));
        assertEquals("the capabilities still say what the phone can do", new AudioCapabilities(true, true, "call_interception", 16000), o.capabilities());
        assertTrue("polled the mode all along", phone.modeReads >= 40);
    }

    @Test
    public void illegalStateWhileTheModeReadsInCallIsTriedAgainEvery50Ms() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        final int[] refusals = {3};
        phone.capture = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                if (refusals[0]-- > 0) throw new IllegalStateException("mode not yet applied");
                return "record " + way;
            }
        };
        CallAudioOpener<String, String> o = opener(35, Boolean.TRUE, phone);
        assertEquals("record call_interception@16000", o.capture().capture);
        assertEquals("call_interception@16000 IllegalStateException +0, call_interception@16000 IllegalStateException +50, "
                + "call_interception@16000 IllegalStateException +100, call_interception@16000 opened +150", attempts(diagnostics));
        assertTrue(o.capabilities().inject);
    }

    @Test
    public void illegalStateUntilTheDeadlineEndsWithoutFallingBackAndTheLogKeepsTheLast20() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        phone.capture = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                if (way.startsWith("voice_downlink")) return "record " + way;
                throw new IllegalStateException("refused");
            }
        };
        CallAudioOpener<String, String> o = opener(33, Boolean.TRUE, phone);
        try {
            o.capture();
            fail("opened");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().contains("after 2000 ms: refused"));
        }
        assertEquals(41, phone.events.size()); // 0, 50, ..., 2000
        assertEquals("open call_interception@16000 @2000", phone.events.get(40));
        assertEquals(CallAudioDiagnostics.KEPT_ATTEMPTS, diagnostics.attempts().size());
        assertEquals(2000, diagnostics.attempts().get(19).waitedMs);
        assertEquals(21, diagnostics.toJson().getInt("attemptsDropped"));
    }

    @Test
    public void unsupportedFallsBackToVoiceDownlinkAtOnceAndListensOnly() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        phone.capture = audioManager(false);
        CallAudioOpener<String, String> o = opener(33, Boolean.TRUE, phone);
        CallAudioOpener.Opened<String> opened = o.capture();
        assertEquals("record voice_downlink@16000", opened.capture);
        assertEquals("call_interception@16000 UnsupportedOperationException +0, voice_downlink@16000/builder opened +0", attempts(diagnostics));
        assertEquals(new AudioCapabilities(true, false, "voice_downlink", 16000), o.capabilities());
        assertTrue(o.note(), o.note().contains("UnsupportedOperationException: PSTN call audio interception not supported"));
        assertTrue(o.note(), o.note().contains("listen only"));
        try {
            o.injection();
            fail("injected while listening only");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("listen only"));
        }
        assertEquals("the track was never asked for", 2, phone.events.size());
    }

    @Test
    public void securityExceptionAndAMissingMethodFallBackToo() throws Exception {
        Exception[] refusals = {new SecurityException("no CALL_AUDIO_INTERCEPTION"), new NoSuchMethodException("getCallDownlinkExtractionAudioRecord")};
        for (final Exception refusal : refusals) {
            FakeClock c = new FakeClock();
            FakePhone phone = new FakePhone(c, CallAudioOpener.MODE_IN_CALL);
            phone.capture = new Behaviour() {
                @Override
                public String open(String way, boolean withoutBuilder, long now, int mode) throws Exception {
                    if (way.startsWith("voice_downlink")) return "record " + way;
                    throw refusal;
                }
            };
            CaptureChoice.Plan plan = CaptureChoice.choose(33, Boolean.TRUE, ALL_RATES);
            CallAudioOpener<String, String> o = new CallAudioOpener<String, String>(plan, phone, c, new CallAudioDiagnostics());
            assertEquals(refusal.toString(), "record voice_downlink@16000", o.capture().capture);
            assertEquals(0, c.now);
        }
    }

    @Test
    public void android11OpensInsideTheShellWindowAndRetriesUnsupportedThere() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        final int[] refusals = {2};
        phone.capture = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                if (refusals[0]-- > 0) throw new UnsupportedOperationException("Cannot create AudioRecord");
                return "record " + way;
            }
        };
        CallAudioOpener<String, String> o = opener(30, null, phone);
        assertEquals("record voice_downlink@16000", o.capture().capture);
        assertEquals("[show @0, open voice_downlink@16000 @100, open voice_downlink@16000 @200, open voice_downlink@16000 @300, close @300]",
                phone.events.toString());
        assertEquals("the mode, already the call's, is read once", 1, phone.modeReads);
        assertEquals(new AudioCapabilities(true, false, "voice_downlink", 16000), o.capabilities());
    }

    @Test
    public void android11GivesUpAfterFiveTriesAndClosesTheWindow() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        phone.capture = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                throw new UnsupportedOperationException("Cannot create AudioRecord");
            }
        };
        CallAudioOpener<String, String> o = opener(30, null, phone);
        try {
            o.capture();
            fail("opened");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().contains("voice_downlink@16000: UnsupportedOperationException: Cannot create AudioRecord"));
        }
        assertEquals(7, phone.events.size());
        assertEquals("show @0", phone.events.get(0));
        assertEquals("close @500", phone.events.get(6));
    }

    @Test
    public void android11DoesNotRetryWhatTheWindowCannotFix() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        phone.capture = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                throw new SecurityException("no CAPTURE_AUDIO_OUTPUT");
            }
        };
        try {
            opener(30, null, phone).capture();
            fail("opened");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().contains("SecurityException"));
        }
        assertEquals("[show @0, open voice_downlink@16000 @100, close @100]", phone.events.toString());
    }

    @Test
    public void android12OpensTheDownlinkAtOnceInACallWithoutTheWindow() throws Exception {
        for (int sdk : new int[] {31, 32}) {
            FakeClock c = new FakeClock();
            FakePhone phone = new FakePhone(c, CallAudioOpener.MODE_IN_CALL);
            phone.capture = audioManager(false);
            CaptureChoice.Plan plan = CaptureChoice.choose(sdk, null, ALL_RATES);
            CallAudioOpener<String, String> o = new CallAudioOpener<String, String>(plan, phone, c, new CallAudioDiagnostics());
            assertEquals("record voice_downlink@16000", o.capture().capture);
            assertEquals("[open voice_downlink@16000 @0]", phone.events.toString());
            assertEquals(0, c.now);
        }
    }

    @Test
    public void theDownlinkWaitsForTheCallsModeTooAndOpensAtTheDeadlineWhateverItReads() throws Exception {
        // A Qualcomm HAL routes VOICE_DOWNLINK to the call only while the call is up: wait for its mode.
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_NORMAL).modeFrom(330, CallAudioOpener.MODE_IN_CALL);
        phone.capture = audioManager(false);
        CallAudioOpener<String, String> o = opener(31, null, phone);
        assertEquals("record voice_downlink@16000", o.capture().capture);
        assertEquals("[open voice_downlink@16000 @350]", phone.events.toString());

        // A VoIP app's mode is not the call's: no early start, one try at the deadline.
        FakeClock c = new FakeClock();
        FakePhone voip = new FakePhone(c, CallAudioOpener.MODE_IN_COMMUNICATION);
        voip.capture = audioManager(false);
        CaptureChoice.Plan plan = CaptureChoice.choose(31, null, ALL_RATES);
        CallAudioOpener<String, String> late = new CallAudioOpener<String, String>(plan, voip, c, new CallAudioDiagnostics());
        assertEquals("record voice_downlink@16000", late.capture().capture);
        assertEquals("[open voice_downlink@16000 @2000]", voip.events.toString());

        // Android 11: the wait comes before the Shell window, which is up only for the tries.
        FakeClock c11 = new FakeClock();
        FakePhone eleven = new FakePhone(c11, CallAudioOpener.MODE_NORMAL).modeFrom(500, CallAudioOpener.MODE_IN_CALL);
        eleven.capture = audioManager(false);
        new CallAudioOpener<String, String>(CaptureChoice.choose(30, null, ALL_RATES), eleven, c11, new CallAudioDiagnostics()).capture();
        assertEquals("[show @500, open voice_downlink@16000 @600, close @600]", eleven.events.toString());
    }

    @Test
    public void aBuilderThatThrowsNullPointerIsPassedByAndNotAskedAgain() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        phone.capture = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                if (!withoutBuilder) throw new NullPointerException("Attempt to invoke virtual method on a null object reference");
                return "record without builder";
            }
        };
        CallAudioOpener<String, String> o = opener(31, null, phone);
        assertEquals("record without builder", o.capture().capture);
        assertEquals("record without builder", o.capture().capture);
        assertEquals("[open voice_downlink@16000 @0, open voice_downlink@16000 fields @0, open voice_downlink@16000 fields @0]",
                phone.events.toString());
        assertEquals("voice_downlink@16000/builder NullPointerException +0, voice_downlink@16000/fields opened +0, "
                + "voice_downlink@16000/fields opened +0", attempts(diagnostics));
    }

    @Test
    public void theInjectionWaitsForTheModeAndRetriesButNeverFallsBack() throws Exception {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        phone.capture = audioManager(true);
        CallAudioOpener<String, String> o = opener(33, Boolean.TRUE, phone);
        o.capture();
        // The call goes on hold elsewhere, its mode drops to NORMAL, then comes back at 400 ms.
        phone.modeFrom(0, CallAudioOpener.MODE_NORMAL).modeFrom(400, CallAudioOpener.MODE_CALL_REDIRECT);
        phone.injection = audioManager(true);
        assertEquals("track injection", o.injection());
        assertEquals(400, clock.now);

        FakeClock c = new FakeClock();
        FakePhone stuck = new FakePhone(c, CallAudioOpener.MODE_IN_CALL);
        stuck.capture = audioManager(true);
        stuck.injection = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                throw new IllegalStateException("no");
            }
        };
        CallAudioDiagnostics d = new CallAudioDiagnostics();
        CallAudioOpener<String, String> s = new CallAudioOpener<String, String>(CaptureChoice.choose(33, Boolean.TRUE, ALL_RATES), stuck, c, d);
        s.capture();
        try {
            s.injection();
            fail("injected");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("the injection did not open: IllegalStateException"));
        }
        assertEquals(2000, c.now);
        assertEquals("injection", d.attempts().get(d.attempts().size() - 1).way);
        assertTrue("the capture is untouched", s.capabilities().inject);

        FakePhone unsupported = new FakePhone(new FakeClock(), CallAudioOpener.MODE_IN_CALL);
        unsupported.capture = audioManager(true);
        unsupported.injection = new Behaviour() {
            @Override
            public String open(String way, boolean withoutBuilder, long now, int mode) {
                throw new UnsupportedOperationException("no uplink");
            }
        };
        CallAudioOpener<String, String> u = new CallAudioOpener<String, String>(CaptureChoice.choose(33, Boolean.TRUE, ALL_RATES), unsupported,
                unsupported.clock, new CallAudioDiagnostics());
        u.capture();
        try {
            u.injection();
            fail("injected");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().contains("UnsupportedOperationException: no uplink"));
        }
        assertEquals("one try", "[open call_interception@16000 @0, inject @0]", unsupported.events.toString());
    }

    @Test
    public void aPhoneThatCannotCaptureSaysWhyWithoutTouchingThePlatform() {
        FakePhone phone = new FakePhone(clock, CallAudioOpener.MODE_IN_CALL);
        CallAudioOpener<String, String> o = opener(29, null, phone);
        try {
            o.capture();
            fail("captured on Android 10");
        } catch (Exception e) {
            assertTrue(e.getMessage(), e.getMessage().contains("Android 10 and older"));
        }
        assertTrue(phone.events.isEmpty());
    }
}
