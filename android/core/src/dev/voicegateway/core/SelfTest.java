package dev.voicegateway.core;

import dev.voicegateway.core.audio.AudioCapabilities;
import dev.voicegateway.core.audio.AudioPort;
import dev.voicegateway.core.helper.HelperAudioPort;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The phone's self-test (docs/android.md, "The self-test"; phone protocol extension 1.3): what the
 * first real phone must tell about itself, since nothing here can run the APK. It reads the
 * platform's facts through a {@link Probe}, the socket's state from the {@link PhoneStatus} and the
 * audio helper's from its port, and hands the report to a {@link Sender} (the {@link PhoneClient},
 * which sends it once welcomed). It runs on demand ({@link #run}) and after each start of the audio
 * helper: the port turning running, and each DIAGNOSTICS the helper sends (after every capture or
 * injection attempt), gathered over {@link #SETTLE_MS} into one report. Never holds a credential.
 */
public final class SelfTest implements PhoneClient.Observer {
    /** Cues that come together (running, then the helper's DIAGNOSTICS) make one report. */
    public static final long SETTLE_MS = 1000;
    public static final int VERSION = 1;
    static final String HELPER_STARTED = "helper_started";

    /** The platform's facts; each answer null when the phone cannot tell. Called on the clock's thread. */
    public interface Probe {
        /** Whether the app holds the dialer role (RoleManager on Android 10+, the default dialer before). */
        Boolean dialerRoleHeld();

        /** Each permission of the manifest that must be granted (runtime ones, the notification one), and whether it is. */
        Map<String, Boolean> permissions();

        /** Whether the app is exempt from battery optimisation (Doze may otherwise cut its socket). */
        Boolean batteryExempt();

        /** Whether the foreground service that keeps the process alive runs. */
        Boolean foregroundServiceRunning();

        Platform platform();
    }

    /** What the phone is: SDK level, release, maker, model, and the app's version. */
    public static final class Platform {
        public final int sdk;
        public final String release;
        public final String manufacturer;
        public final String brand;
        public final String model;
        public final String appVersion;

        public Platform(int sdk, String release, String manufacturer, String brand, String model, String appVersion) {
            this.sdk = sdk;
            this.release = release;
            this.manufacturer = manufacturer;
            this.brand = brand;
            this.model = model;
            this.appVersion = appVersion;
        }
    }

    /** Where a report goes: {@link PhoneClient#sendDiagnostics}. */
    public interface Sender {
        void send(JSONObject report);
    }

    private final Probe probe;
    private final AudioPort audio;
    private final Clock clock;
    private final Sender sender;
    private final Log log;

    // Touched on the clock's thread only.
    private PhoneStatus status;
    private String lastAudio;
    private Clock.Timer settling;
    private String pendingTrigger;
    private volatile JSONObject last;

    public SelfTest(Probe probe, AudioPort audio, Clock clock, Sender sender, Log log) {
        this.probe = probe;
        this.audio = audio;
        this.clock = clock;
        this.sender = sender;
        this.log = log;
    }

    /**
     * Sends the self-test through {@code client} on demand and after each start of the helper; the
     * clock should be the client's.
     */
    public static SelfTest attach(Probe probe, final PhoneClient client, AudioPort audio, Clock clock, Log log) {
        SelfTest t = new SelfTest(probe, audio, clock, new Sender() {
            @Override
            public void send(JSONObject report) {
                client.sendDiagnostics(report);
            }
        }, log);
        client.addObserver(t);
        t.watchHelper();
        return t;
    }

    /** Hears the helper's DIAGNOSTICS, when the audio comes from the helper. */
    public void watchHelper() {
        if (!(audio instanceof HelperAudioPort)) return;
        ((HelperAudioPort) audio).setDiagnosticsListener(new Runnable() {
            @Override
            public void run() {
                cue("helper_report");
            }
        });
    }

    /** Runs the self-test now and hands it on (the status screen's button). */
    public void run() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (settling != null) settling.cancel();
                settling = null;
                pendingTrigger = null;
                send("manual");
            }
        });
    }

    /** The last report built, or null. */
    public JSONObject lastReport() {
        return last;
    }

    @Override
    public void onStatus(final PhoneStatus s) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                status = s;
                String previous = lastAudio;
                lastAudio = s.audio;
                if (Protocol.AUDIO_RUNNING.equals(s.audio) && !Protocol.AUDIO_RUNNING.equals(previous)) cue(HELPER_STARTED);
            }
        });
    }

    @Override
    public void onMessage(boolean outgoing, JSONObject message) {
    }

    /**
     * A reason to run soon. The helper's start names the report when it falls in the settling
     * period (its DIAGNOSTICS may overtake the port's turn to running); else the first reason does.
     */
    void cue(final String trigger) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (settling != null) {
                    if (trigger.equals(HELPER_STARTED)) pendingTrigger = trigger;
                    return;
                }
                pendingTrigger = trigger;
                settling = clock.schedule(new Runnable() {
                    @Override
                    public void run() {
                        settling = null;
                        String t = pendingTrigger;
                        pendingTrigger = null;
                        send(t);
                    }
                }, SETTLE_MS);
            }
        });
    }

    private void send(String trigger) {
        JSONObject report;
        try {
            report = build(trigger);
        } catch (RuntimeException e) {
            // A probe that throws must not cost the report: what broke is the report.
            log.log(Log.WARN, "the self-test failed", e);
            report = failed(trigger, e);
        }
        last = report;
        sender.send(report);
    }

    /** The report (the {@code report} of extension 1.3), from the probe, the status and the audio port. */
    JSONObject build(String trigger) {
        try {
            JSONObject r = new JSONObject();
            r.put("generatedAt", Iso8601.format(clock.now()));
            r.put("trigger", trigger);
            Platform p = probe.platform();
            r.put("app", new JSONObject().put("version", clip(p.appVersion, 50)));
            r.put("device", new JSONObject().put("manufacturer", clip(p.manufacturer, 100)).put("brand", clip(p.brand, 100))
                    .put("model", clip(p.model, 100)).put("sdk", p.sdk).put("release", clip(p.release, 50)));
            JSONArray checks = new JSONArray();
            r.put("checks", checks);
            check(checks, "dialer_role", probe.dialerRoleHeld(), null);
            Map<String, Boolean> permissions = probe.permissions();
            for (Map.Entry<String, Boolean> e : permissions.entrySet()) check(checks, "permission:" + e.getKey(), e.getValue(), null);
            check(checks, "battery_exemption", probe.batteryExempt(), null);
            check(checks, "foreground_service", probe.foregroundServiceRunning(), null);
            PhoneStatus s = status;
            if (s != null) {
                check(checks, "gateway_socket", s.link == PhoneStatus.Link.CONNECTED, name(s.link) + (s.lastError != null ? ": " + s.lastError : ""));
                r.put("gateway", new JSONObject().put("link", name(s.link)).put("lastError", s.lastError == null ? JSONObject.NULL : clip(s.lastError, 2000)));
            }
            JSONObject helper = helper();
            String problem = helper.optString("problem", "");
            check(checks, "helper", Protocol.AUDIO_RUNNING.equals(helper.optString("state")), helper.optString("state") + (problem.isEmpty() ? "" : ": " + problem));
            r.put("helper", helper);
            return r;
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    private JSONObject helper() throws JSONException {
        JSONObject h = new JSONObject();
        h.put("state", audio.state());
        AudioCapabilities c = audio.capabilities();
        h.put("capabilities", c == null ? JSONObject.NULL : c.toJson());
        if (audio instanceof HelperAudioPort) {
            HelperAudioPort port = (HelperAudioPort) audio;
            int uid = port.helperUid();
            h.put("uid", uid < 0 ? JSONObject.NULL : (Object) Integer.valueOf(uid));
            h.put("note", clip(port.note(), 2000));
            String problem = port.problem();
            h.put("problem", problem == null ? JSONObject.NULL : clip(problem, 2000));
            h.put("capturing", port.capturing());
            h.put("injecting", port.injecting());
            JSONObject d = port.lastDiagnostics();
            h.put("diagnostics", d == null ? JSONObject.NULL : clean(d, null));
        } else {
            h.put("uid", JSONObject.NULL);
            h.put("diagnostics", JSONObject.NULL);
        }
        return h;
    }

    private JSONObject failed(String trigger, RuntimeException e) {
        try {
            JSONObject r = new JSONObject();
            r.put("generatedAt", Iso8601.format(clock.now()));
            r.put("trigger", trigger);
            JSONArray checks = new JSONArray();
            check(checks, "self_test", Boolean.FALSE, clip(e.getClass().getName() + ": " + e.getMessage(), 2000));
            r.put("checks", checks);
            return r;
        } catch (JSONException j) {
            throw new IllegalStateException(j);
        }
    }

    private static void check(JSONArray checks, String name, Boolean ok, String detail) throws JSONException {
        JSONObject c = new JSONObject().put("name", clip(name, 200)).put("ok", ok == null ? JSONObject.NULL : ok);
        if (detail != null && !detail.isEmpty()) c.put("detail", clip(detail, 2000));
        checks.put(c);
    }

    /**
     * The helper's report as the gateway takes it: short names (way, result, exception) on one line
     * within 200 characters, other texts within 2000 with their line breaks; the helper's engine may
     * quote any exception message.
     */
    private static Object clean(Object v, String key) throws JSONException {
        if (v instanceof JSONObject) {
            JSONObject in = (JSONObject) v;
            JSONObject out = new JSONObject();
            java.util.Iterator<String> keys = in.keys();
            while (keys.hasNext()) {
                String k = keys.next();
                out.put(k, clean(in.get(k), k));
            }
            return out;
        }
        if (v instanceof JSONArray) {
            JSONArray in = (JSONArray) v;
            JSONArray out = new JSONArray();
            for (int i = 0; i < in.length(); i++) out.put(clean(in.get(i), key));
            return out;
        }
        if (!(v instanceof String)) return v;
        String text = (String) v;
        if ("way".equals(key) || "result".equals(key) || "exception".equals(key)) return clip(text, 200);
        return clipLines(text, 2000);
    }

    private static String clipLines(String s, int max) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max));
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char ch = s.charAt(i);
            boolean line = ch == '\t' || ch == '\n' || ch == '\r';
            b.append((ch < 0x20 && !line) || ch == 0x7f ? ' ' : ch);
        }
        return b.toString();
    }

    private static String name(PhoneStatus.Link link) {
        return link.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Text within the gateway's bounds, without the control characters it refuses (tabs and line breaks kept in details). */
    private static String clip(String s, int max) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(Math.min(s.length(), max));
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char ch = s.charAt(i);
            b.append(ch < 0x20 || ch == 0x7f ? ' ' : ch);
        }
        return b.toString();
    }
}
