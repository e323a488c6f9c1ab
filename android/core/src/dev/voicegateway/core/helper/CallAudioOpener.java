package dev.voicegateway.core.helper;

import dev.voicegateway.core.audio.AudioCapabilities;

/**
 * How the audio helper opens the ways of a {@link CaptureChoice.Plan} when a call starts: every
 * rule of waiting, retrying and falling back, with the platform behind a small interface so that
 * the rules run tick by tick on the host (CallAudioOpenerTest). The phone's adapter
 * (AndroidCallAudio) only opens one way when asked and reads the audio mode.
 *
 * <ul>
 *   <li><b>The audio mode (Android 13+).</b> AudioManager.getCallDownlinkExtractionAudioRecord and
 *   getCallUplinkInjectionAudioTrack (frameworks/base media/java/android/media/AudioManager.java)
 *   throw IllegalStateException unless the audio mode is a call's (IN_CALL, CALL_SCREENING, CALL_REDIRECT,
 *   and VoIP's two, which {@link #isCallMode} leaves out for a SIM call),
 *   and UnsupportedOperationException when the phone's audio HAL cannot intercept a SIM call (CTS
 *   CallAudioInterceptionTest tests both). Telecom sets MODE_IN_CALL from its
 *   CallAudioModeStateMachine (packages/services/Telecomm), a StateMachine on a handler of its own,
 *   after the call turns active, so START_CAPTURE, sent at ACTIVE, can arrive first: the opener polls the
 *   mode every {@link #POLL_MS} ms for up to {@link #MODE_WAIT_MS} ms, tries once a call mode is
 *   seen (or at the deadline, whatever the mode reads), and tries again on IllegalStateException
 *   until the deadline.</li>
 *   <li><b>Falling back.</b> Only a refusal that will not change during the call moves on to the
 *   plan's next way (VOICE_DOWNLINK, listen only): UnsupportedOperationException or
 *   SecurityException, and anything else that is not IllegalStateException (a method this ROM
 *   lacks, a record that did not initialise). IllegalStateException past the deadline ends the
 *   attempt without falling back: the call is not in a call mode, and a listen-only capture chosen
 *   for that reason would stay listen-only for the whole call.</li>
 *   <li><b>The Shell window (Android 11).</b> The record is made and started while an activity of
 *   the Shell app is in the foreground; UnsupportedOperationException there (not yet in the
 *   foreground) is tried again, {@link #WINDOW_TRIES} times {@link #WINDOW_DELAY_MS} ms apart, as
 *   scrcpy's AudioDirectCapture.start/tryStartRecording does.</li>
 *   <li><b>AudioRecord.Builder (Vivo).</b> A VOICE_DOWNLINK record whose Builder throws
 *   NullPointerException is made again without the Builder (scrcpy's Workarounds.createAudioRecord,
 *   for its issues 3805 and 3862), and every later one straight away.</li>
 * </ul>
 *
 * Every try goes to the {@link CallAudioDiagnostics} attempt log. {@link #capture} and
 * {@link #injection} are called by the helper's service from one connection at a time, under its
 * lock; {@link #capabilities} and {@link #note} may be read from any thread.
 */
public final class CallAudioOpener<C, I> {
    /** AudioManager.MODE_* (android.media.AudioManager: CALL_SCREENING since API 30, the two REDIRECT modes since API 33). */
    public static final int MODE_NORMAL = 0;
    public static final int MODE_RINGTONE = 1;
    public static final int MODE_IN_CALL = 2;
    public static final int MODE_IN_COMMUNICATION = 3;
    public static final int MODE_CALL_SCREENING = 4;
    public static final int MODE_CALL_REDIRECT = 5;
    public static final int MODE_COMMUNICATION_REDIRECT = 6;

    /** How long a way that needs a call mode is waited for, from the first look at the mode. */
    public static final long MODE_WAIT_MS = 2000;
    /** How often the mode is read while waiting, and the pause before trying again. */
    public static final long POLL_MS = 50;
    /** Android 11: tries inside the Shell window, and the pause before each (scrcpy: 5 and 100 ms). */
    public static final int WINDOW_TRIES = 5;
    public static final long WINDOW_DELAY_MS = 100;

    static final String VIA_BUILDER = "builder";
    static final String VIA_FIELDS = "fields";

    /** What the phone does; the adapter releases whatever it made before it throws. */
    public interface Platform<C, I> {
        /** AudioManager.getMode(); throws when it cannot be read. */
        int audioMode() throws Exception;

        /**
         * Makes and starts a capture of {@code option}. {@code withoutBuilder}: for VOICE_DOWNLINK,
         * make the AudioRecord without AudioRecord.Builder (never asked for the interception API).
         */
        C openCapture(CaptureChoice.Option option, boolean withoutBuilder) throws Exception;

        /** Makes and starts the injection track (getCallUplinkInjectionAudioTrack). */
        I openInjection() throws Exception;

        /** Android 11: brings an activity of the Shell app to the foreground. */
        void showShellWindow();

        /** Closes it again. */
        void closeShellWindow();
    }

    /** Time, which the tests move by hand. */
    public interface Clock {
        long nowMs();

        void sleepMs(long ms) throws InterruptedException;
    }

    /** The system's clock. */
    public static final Clock SYSTEM_CLOCK = new Clock() {
        @Override
        public long nowMs() {
            return System.nanoTime() / 1000000L;
        }

        @Override
        public void sleepMs(long ms) throws InterruptedException {
            Thread.sleep(ms);
        }
    };

    /** A capture that opened, and which way. */
    public static final class Opened<C> {
        public final C capture;
        public final CaptureChoice.Option option;

        Opened(C capture, CaptureChoice.Option option) {
            this.capture = capture;
            this.option = option;
        }
    }

    private final CaptureChoice.Plan plan;
    private final Platform<C, I> platform;
    private final Clock clock;
    private final CallAudioDiagnostics diagnostics;
    /** Read by the service's announcements while another call may be opening: volatile. */
    private volatile AudioCapabilities current;
    private volatile String note;
    private boolean builderBroken;

    public CallAudioOpener(CaptureChoice.Plan plan, Platform<C, I> platform, Clock clock, CallAudioDiagnostics diagnostics) {
        this.plan = plan;
        this.platform = platform;
        this.clock = clock;
        this.diagnostics = diagnostics;
        this.current = plan.capabilities();
        this.note = plan.note;
    }

    /**
     * Whether {@code mode} is a SIM call's. AudioManager's interception API also accepts
     * IN_COMMUNICATION and COMMUNICATION_REDIRECT, but those are VoIP's: getCallRedirectMode() maps
     * them to CALL_REDIRECT_VOIP, so a record made in them would extract a VoIP app's downlink, and a
     * VoIP app's mode must not end the wait for the SIM call's.
     */
    public static boolean isCallMode(int mode) {
        return mode == MODE_IN_CALL || mode == MODE_CALL_SCREENING || mode == MODE_CALL_REDIRECT;
    }

    /** The plan's capabilities until a capture opens, then those of the way that opened. */
    public AudioCapabilities capabilities() {
        return current;
    }

    public String note() {
        return note;
    }

    /**
     * Opens the first way of the plan that will, by the rules above. Throws, with every way's
     * failure in the message, when none does.
     */
    public Opened<C> capture() throws Exception {
        if (plan.capture.isEmpty()) throw new Exception(plan.note);
        StringBuilder failures = new StringBuilder();
        for (int i = 0; i < plan.capture.size(); i++) {
            CaptureChoice.Option option = plan.capture.get(i);
            Outcome<C> outcome = open(option);
            if (outcome.opened != null) {
                boolean first = i == 0;
                current = new AudioCapabilities(true, plan.inject && first, option.method, option.sampleRate);
                if (!first) note = "The call-audio interception API refused (" + failures + "): listen only.";
                else note = plan.note;
                return new Opened<C>(outcome.opened, option);
            }
            if (failures.length() > 0) failures.append("; ");
            failures.append(option).append(": ").append(describe(outcome.failure));
            if (!outcome.fallBack) break;
        }
        throw new Exception("no capture could start (" + failures + ")");
    }

    /** Opens the injection track: the same wait for a call mode and retries, no fallback. */
    public I injection() throws Exception {
        if (!current.inject) throw new Exception("listen only: " + note);
        final long start = clock.nowMs();
        Outcome<I> outcome = inCallMode("injection", start, new Attempt<I>() {
            @Override
            public I run() throws Exception {
                return platform.openInjection();
            }
        });
        if (outcome.opened != null) return outcome.opened;
        throw new Exception("the injection did not open: " + describe(outcome.failure));
    }

    private Outcome<C> open(final CaptureChoice.Option option) throws InterruptedException {
        final long start = clock.nowMs();
        if (option.needsCallMode()) {
            return inCallMode(option.toString(), start, new Attempt<C>() {
                @Override
                public C run() throws Exception {
                    return platform.openCapture(option, false);
                }
            });
        }
        // VOICE_DOWNLINK waits for the call's mode too, without failing at the deadline: a Qualcomm HAL
        // routes the input to the call's downlink only while a voice call is up, and otherwise opens an
        // ordinary record use case (hardware/qcom/audio hal/voice.c, voice_check_and_set_incall_rec_usecase:
        // "voice call not active"), which would hear the phone's own microphone. On Android 11 the
        // wait comes before the Shell window, so the window is up only for the tries.
        awaitCallMode(start + MODE_WAIT_MS);
        if (!plan.foregroundWindow) return record(option, start);
        platform.showShellWindow();
        try {
            Outcome<C> last = null;
            for (int tries = 1; tries <= WINDOW_TRIES; tries++) {
                clock.sleepMs(WINDOW_DELAY_MS); // for the activity to come to the front
                last = record(option, start);
                if (last.opened != null || !(last.failure instanceof UnsupportedOperationException)) return last;
            }
            return last;
        } finally {
            platform.closeShellWindow();
        }
    }

    /** One AudioRecord of VOICE_DOWNLINK: through its Builder, and without it when the Builder throws NullPointerException. */
    private Outcome<C> record(CaptureChoice.Option option, long start) {
        String way = option.toString();
        if (!builderBroken) {
            try {
                C c = platform.openCapture(option, false);
                diagnostics.opened(way, VIA_BUILDER, clock.nowMs() - start);
                return Outcome.opened(c);
            } catch (Exception e) {
                diagnostics.failed(way, VIA_BUILDER, e, clock.nowMs() - start);
                if (!(e instanceof NullPointerException)) return Outcome.failed(e, true);
                builderBroken = true;
            }
        }
        try {
            C c = platform.openCapture(option, true);
            diagnostics.opened(way, VIA_FIELDS, clock.nowMs() - start);
            return Outcome.opened(c);
        } catch (Exception e) {
            diagnostics.failed(way, VIA_FIELDS, e, clock.nowMs() - start);
            return Outcome.failed(e, true);
        }
    }

    /** Waits for a call mode (at most until the deadline), then tries; IllegalStateException is tried again until the deadline. */
    private <T> Outcome<T> inCallMode(String way, long start, Attempt<T> attempt) throws InterruptedException {
        long deadline = start + MODE_WAIT_MS;
        while (true) {
            boolean callMode = readCallMode();
            long now = clock.nowMs();
            if (!callMode && now < deadline) {
                clock.sleepMs(Math.min(POLL_MS, deadline - now));
                continue;
            }
            try {
                T opened = attempt.run();
                diagnostics.opened(way, "", clock.nowMs() - start);
                return Outcome.opened(opened);
            } catch (Exception e) {
                now = clock.nowMs();
                diagnostics.failed(way, "", e, now - start);
                if (!(e instanceof IllegalStateException)) return Outcome.failed(e, true);
                if (now >= deadline) {
                    return Outcome.failed(new IllegalStateException("the audio mode was " + CallAudioDiagnostics.modeName(diagnostics.lastAudioMode())
                            + " after " + MODE_WAIT_MS + " ms: " + e.getMessage()), false);
                }
                clock.sleepMs(Math.min(POLL_MS, deadline - now));
            }
        }
    }

    /** Polls the mode until it is a call's or {@code deadline} passes. */
    private void awaitCallMode(long deadline) throws InterruptedException {
        while (!readCallMode()) {
            long now = clock.nowMs();
            if (now >= deadline) return;
            clock.sleepMs(Math.min(POLL_MS, deadline - now));
        }
    }

    private boolean readCallMode() {
        try {
            int mode = platform.audioMode();
            diagnostics.audioMode(mode);
            return isCallMode(mode);
        } catch (Exception e) {
            // Unreadable: wait out the deadline and let AudioManager decide.
            return false;
        }
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    private interface Attempt<T> {
        T run() throws Exception;
    }

    private static final class Outcome<T> {
        final T opened;
        final Exception failure;
        /** Whether the plan's next way may be tried. */
        final boolean fallBack;

        private Outcome(T opened, Exception failure, boolean fallBack) {
            this.opened = opened;
            this.failure = failure;
            this.fallBack = fallBack;
        }

        static <T> Outcome<T> opened(T t) {
            return new Outcome<T>(t, null, false);
        }

        static <T> Outcome<T> failed(Exception e, boolean fallBack) {
            return new Outcome<T>(null, e, fallBack);
        }
    }
}
