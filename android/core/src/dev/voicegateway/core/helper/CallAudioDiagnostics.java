package dev.voicegateway.core.helper;

import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * What the phone's call-audio engine tried and saw, for {@link CallAudioEngine#diagnostics()}: the
 * platform facts (API level, isPstnCallAudioInterceptable, the plan, the last audio mode read), the
 * steps of the shell environment, and the last {@link #KEPT_ATTEMPTS} attempts to open a way. Its
 * JSON always fits in one helper message ({@link #MAX_BYTES} bytes of UTF-8). Thread-safe.
 */
public final class CallAudioDiagnostics {
    /** A helper message's payload is at most 4096 bytes (docs/android.md, "The framing"). */
    public static final int MAX_BYTES = 4096;
    /** Attempts kept: enough for a few calls' worth of retries and fallbacks. */
    public static final int KEPT_ATTEMPTS = 20;
    /** An exception's message is cut to this many characters; the rest says nothing new. */
    static final int MESSAGE_CHARS = 160;
    /** The value of "audioMode" before any was read. */
    public static final int MODE_NOT_READ = Integer.MIN_VALUE;

    private static final Charset UTF8 = Charset.forName("UTF-8");

    /** One try at opening one way. */
    public static final class Attempt {
        /** "call_interception@16000", "voice_downlink@16000" or "injection". */
        public final String way;
        /** "builder" or "fields" for an AudioRecord of VOICE_DOWNLINK (RecordWithoutBuilder); else "". */
        public final String via;
        public final boolean opened;
        /** The exception's simple class name; "" when it opened. */
        public final String exception;
        public final String message;
        /** How long the opener had waited for this way when it tried (mode wait, retries, the Shell window). */
        public final long waitedMs;

        Attempt(String way, String via, boolean opened, String exception, String message, long waitedMs) {
            this.way = way;
            this.via = via;
            this.opened = opened;
            this.exception = exception;
            this.message = message;
            this.waitedMs = waitedMs;
        }

        JSONObject toJson(int messageChars) throws JSONException {
            JSONObject o = new JSONObject();
            o.put("way", way);
            if (!via.isEmpty()) o.put("via", via);
            o.put("result", opened ? "opened" : "failed");
            // The same keys for every attempt, "" where it opened: one shape for whoever reads the report.
            o.put("exception", exception);
            o.put("message", cut(message, messageChars));
            o.put("waitedMs", waitedMs);
            return o;
        }
    }

    /** One step of the shell environment (ShellEnvironment on the phone). */
    public static final class Step {
        public final String name;
        /** "filled", "failed" or "skipped". */
        public final String result;
        public final String message;

        Step(String name, String result, String message) {
            this.name = name;
            this.result = result;
            this.message = message;
        }
    }

    private final Deque<Attempt> attempts = new ArrayDeque<Attempt>();
    private final List<Step> environment = new ArrayList<Step>();
    private int sdk;
    private Boolean interceptable;
    private List<String> plan = new ArrayList<String>();
    private int audioMode = MODE_NOT_READ;
    private int dropped;

    /** The platform facts the plan was chosen from, and the plan (its ways, best first). */
    public synchronized void platform(int sdk, Boolean interceptable, CaptureChoice.Plan p) {
        this.sdk = sdk;
        this.interceptable = interceptable;
        List<String> ways = new ArrayList<String>();
        for (CaptureChoice.Option o : p.capture) ways.add(o.toString());
        if (p.inject) ways.add("injection");
        this.plan = ways;
    }

    public synchronized void environmentStep(String name, String result, String message) {
        environment.add(new Step(name, result, message == null ? "" : message));
    }

    public synchronized void audioMode(int mode) {
        audioMode = mode;
    }

    public synchronized int lastAudioMode() {
        return audioMode;
    }

    synchronized void opened(String way, String via, long waitedMs) {
        add(new Attempt(way, via, true, "", "", waitedMs));
    }

    synchronized void failed(String way, String via, Throwable e, long waitedMs) {
        String m = e.getMessage();
        add(new Attempt(way, via, false, e.getClass().getSimpleName(), m == null ? "" : m, waitedMs));
    }

    private void add(Attempt a) {
        attempts.addLast(a);
        while (attempts.size() > KEPT_ATTEMPTS) {
            attempts.removeFirst();
            dropped++;
        }
    }

    /** The attempts kept, oldest first. */
    public synchronized List<Attempt> attempts() {
        return new ArrayList<Attempt>(attempts);
    }

    public synchronized List<Step> environment() {
        return new ArrayList<Step>(environment);
    }

    /**
     * The diagnostics object: {@code sdk, interceptable, plan, audioMode, attempts, environment}
     * (and {@code attemptsDropped} once older attempts were let go). Within {@link #MAX_BYTES}: the
     * messages are cut, shorter if need be, then the oldest attempts are left out.
     */
    public synchronized JSONObject toJson() {
        List<Attempt> kept = new ArrayList<Attempt>(attempts);
        int extraDropped = 0;
        int[] messageChars = {MESSAGE_CHARS, 60, 0};
        try {
            while (true) {
                for (int chars : messageChars) {
                    JSONObject o = build(kept, dropped + extraDropped, chars);
                    if (o.toString().getBytes(UTF8).length <= MAX_BYTES) return o;
                }
                if (kept.isEmpty()) throw new IllegalStateException("the call-audio diagnostics do not fit in " + MAX_BYTES + " bytes");
                kept.remove(0);
                extraDropped++;
            }
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    private JSONObject build(List<Attempt> kept, int droppedCount, int messageChars) throws JSONException {
        JSONObject o = new JSONObject();
        o.put("sdk", sdk);
        o.put("interceptable", interceptable == null ? JSONObject.NULL : interceptable);
        o.put("plan", new JSONArray(plan));
        o.put("audioMode", audioMode == MODE_NOT_READ ? JSONObject.NULL : (Object) modeName(audioMode));
        JSONArray a = new JSONArray();
        for (Attempt attempt : kept) a.put(attempt.toJson(messageChars));
        o.put("attempts", a);
        if (droppedCount > 0) o.put("attemptsDropped", droppedCount);
        JSONArray env = new JSONArray();
        for (Step s : environment) {
            JSONObject step = new JSONObject().put("step", s.name).put("result", s.result);
            if (!s.message.isEmpty()) step.put("message", cut(s.message, Math.max(messageChars, 60)));
            env.put(step);
        }
        o.put("environment", env);
        return o;
    }

    /** AudioManager's MODE_* by name (values of AudioManager, API 1 to 33), else the number. */
    public static String modeName(int mode) {
        switch (mode) {
            case CallAudioOpener.MODE_NORMAL:
                return "NORMAL";
            case CallAudioOpener.MODE_RINGTONE:
                return "RINGTONE";
            case CallAudioOpener.MODE_IN_CALL:
                return "IN_CALL";
            case CallAudioOpener.MODE_IN_COMMUNICATION:
                return "IN_COMMUNICATION";
            case CallAudioOpener.MODE_CALL_SCREENING:
                return "CALL_SCREENING";
            case CallAudioOpener.MODE_CALL_REDIRECT:
                return "CALL_REDIRECT";
            case CallAudioOpener.MODE_COMMUNICATION_REDIRECT:
                return "COMMUNICATION_REDIRECT";
            default:
                return String.valueOf(mode);
        }
    }

    static String cut(String s, int chars) {
        if (s.length() <= chars) return s;
        return chars <= 1 ? "…".substring(0, chars) : s.substring(0, chars - 1) + "…";
    }
}
