package dev.voicegateway.core.helper;

import dev.voicegateway.core.audio.AudioCapabilities;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How the audio helper hears and speaks into a SIM call, per Android version and per what the
 * phone reports (../shared/android/README.md, "Call audio"). One table, one pure function; the
 * helper on the phone only carries out the plan it returns.
 */
public final class CaptureChoice {
    private CaptureChoice() {
    }

    /** The rates to try for AudioRecord, best first: the wire's own, then those that resample exactly. */
    static final int[] RATE_PREFERENCE = {16000, 48000, 8000};
    /** The interception API takes 8 to 48 kHz: ask for the wire's rate, nothing to resample. */
    static final int INTERCEPTION_RATE = 16000;
    /**
     * Android 11 lets only a uid in the foreground record (its AppOps check of RECORD_AUDIO; from
     * Android 12 the shell's CAPTURE_AUDIO_OUTPUT is enough): scrcpy's AudioDirectCapture.start
     * opens its record inside an activity of the Shell app on exactly this level.
     */
    static final int FOREGROUND_ONLY_SDK = 30;

    /** A way to capture the remote party. */
    public static final class Option {
        /** AudioCapabilities.CALL_INTERCEPTION or VOICE_DOWNLINK. */
        public final String method;
        public final int sampleRate;

        Option(String method, int sampleRate) {
            this.method = method;
            this.sampleRate = sampleRate;
        }

        /**
         * Whether this way opens only while the call's audio mode is an in-call one: the
         * interception API throws IllegalStateException otherwise (CallAudioOpener).
         */
        public boolean needsCallMode() {
            return method.equals(CALL);
        }

        @Override
        public String toString() {
            return method + "@" + sampleRate;
        }
    }

    /** What the helper tries, in order, when a call starts. */
    public static final class Plan {
        /** Best first; the first that opens is used. Empty: the phone cannot capture. */
        public final List<Option> capture;
        /** Whether the first option also injects (only the interception API can). */
        public final boolean inject;
        /** Why the helper cannot do more; "" when it can do everything. */
        public final String note;
        /**
         * Android 11 (API 30) only: the record must be made and started while an activity of the
         * Shell app is in the foreground (CallAudioOpener, after scrcpy's AudioDirectCapture).
         */
        public final boolean foregroundWindow;

        Plan(List<Option> capture, boolean inject, String note, boolean foregroundWindow) {
            this.capture = Collections.unmodifiableList(capture);
            this.inject = inject;
            this.note = note;
            this.foregroundWindow = foregroundWindow;
        }

        /** What the helper reports before a call shows which option really opens. */
        public AudioCapabilities capabilities() {
            if (capture.isEmpty()) return AudioCapabilities.NOTHING;
            Option first = capture.get(0);
            return new AudioCapabilities(true, inject, first.method, first.sampleRate);
        }
    }

    private static final String CALL = AudioCapabilities.CALL_INTERCEPTION;
    private static final String DOWNLINK = AudioCapabilities.VOICE_DOWNLINK;

    /** A row: Android API levels (inclusive), isPstnCallAudioInterceptable() (null: any answer), then the plan. */
    private static final class Row {
        final int minSdk;
        final int maxSdk;
        final Boolean interceptable;
        final String[] methods;
        final boolean inject;
        final String note;

        Row(int minSdk, int maxSdk, Boolean interceptable, String[] methods, boolean inject, String note) {
            this.minSdk = minSdk;
            this.maxSdk = maxSdk;
            this.interceptable = interceptable;
            this.methods = methods;
            this.inject = inject;
            this.note = note;
        }
    }

    private static final Row[] TABLE = {
        new Row(0, 29, null, new String[0], false,
                "Android 10 and older do not let the shell capture call audio."),
        new Row(30, 32, null, new String[] {DOWNLINK}, false,
                "Android 11 and 12 let the shell hear the call but not speak into it: listen only."),
        new Row(33, Integer.MAX_VALUE, Boolean.TRUE, new String[] {CALL, DOWNLINK}, true, ""),
        new Row(33, Integer.MAX_VALUE, null, new String[] {DOWNLINK}, false,
                "This phone does not allow SIM call audio to be intercepted (isPstnCallAudioInterceptable): listen only."),
    };

    /**
     * The plan for a phone of API level {@code sdk}, whose AudioManager answered
     * isPstnCallAudioInterceptable() with {@code interceptable} (null: not asked, or it threw), and
     * whose AudioRecord accepts the rates {@code recordRates} (those of 8000, 16000 and 48000 for
     * which AudioRecord.getMinBufferSize is positive).
     */
    public static Plan choose(int sdk, Boolean interceptable, int[] recordRates) {
        Row row = null;
        for (Row r : TABLE) {
            if (sdk >= r.minSdk && sdk <= r.maxSdk && (r.interceptable == null || r.interceptable.equals(interceptable))) {
                row = r;
                break;
            }
        }
        if (row == null) throw new IllegalStateException("no row for API " + sdk);
        int recordRate = firstOffered(recordRates);
        List<Option> options = new ArrayList<Option>();
        for (String method : row.methods) {
            if (method.equals(CALL)) options.add(new Option(CALL, INTERCEPTION_RATE));
            else if (recordRate > 0) options.add(new Option(DOWNLINK, recordRate));
        }
        String note = row.note;
        if (row.methods.length > 0 && options.isEmpty()) {
            note = "This phone records at none of 8, 16 and 48 kHz, so the call cannot be heard.";
        }
        boolean inject = row.inject && !options.isEmpty() && options.get(0).method.equals(CALL);
        return new Plan(options, inject, note, sdk == FOREGROUND_ONLY_SDK && !options.isEmpty());
    }

    private static int firstOffered(int[] offered) {
        for (int preferred : RATE_PREFERENCE) {
            for (int rate : offered) if (rate == preferred) return rate;
        }
        return 0;
    }
}
