package dev.voicegateway.jvm;

import dev.voicegateway.core.CommandRefused;
import dev.voicegateway.core.PhoneClient;
import dev.voicegateway.core.PhoneStatus;
import dev.voicegateway.core.audio.FramePipe;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * --control: the host tests drive the phone with one JSON object per line on stdin
 * ({@code {"id": 1, "op": "ring", "from": "+15550100"}}) and read one per line on stdout: every
 * status change, every protocol message in and out, and a {@code result} for each request.
 */
final class Control {
    private final Main main;

    Control(Main main) {
        this.main = main;
    }

    PhoneClient.Observer observer() {
        return new PhoneClient.Observer() {
            @Override
            public void onStatus(PhoneStatus s) {
                emit(status(s));
            }

            @Override
            public void onMessage(boolean outgoing, JSONObject message) {
                emit(obj("kind", "message").with("dir", outgoing ? "out" : "in").with("message", message));
            }
        };
    }

    void start() {
        Thread reader = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (!line.trim().isEmpty()) handle(line);
                    }
                } catch (IOException e) {
                    // stdin closed: the test harness is gone
                }
                main.stop("stdin closed; stopping");
            }
        }, "vg-control");
        reader.setDaemon(true);
        reader.start();
        emit(obj("kind", "ready"));
    }

    private void handle(String line) {
        JSONObject req;
        try {
            req = new JSONObject(line);
        } catch (JSONException e) {
            emit(obj("kind", "result").with("ok", false).with("error", "not JSON: " + line));
            return;
        }
        Obj result = obj("kind", "result").with("id", req.opt("id")).with("op", req.optString("op"));
        try {
            run(req, result);
            result.with("ok", true);
        } catch (CommandRefused e) {
            result.with("ok", false).with("error", e.code + ": " + e.getMessage());
        } catch (RuntimeException e) {
            result.with("ok", false).with("error", e.toString());
        }
        emit(result);
    }

    private void run(JSONObject req, Obj result) throws CommandRefused {
        String op = req.optString("op");
        SimulatedTelephony t = main.telephony;
        if (op.equals("ring")) t.ringIncoming(req.optString("from"));
        else if (op.equals("remoteHangup")) t.remoteHangup();
        else if (op.equals("remoteAnswer")) t.remoteAnswer();
        else if (op.equals("remoteBusy")) t.remoteBusy();
        else if (op.equals("outcome")) t.setOutcome(Main.outcome(req.optString("outcome")), req.optLong("ringMs", 300));
        else if (op.equals("refuseDials")) t.refuseDials(req.isNull("code") ? null : req.optString("code", null));
        else if (op.equals("tones")) result.with("digits", t.tones());
        else if (op.equals("simUsable")) t.setSimUsable(req.optInt("slot"), req.optBoolean("usable", true));
        else if (op.equals("defaultSim")) t.setDefaultSim(req.optInt("slot", -1));
        else if (op.equals("suggestedSim")) t.setSuggestedSim(req.optInt("slot", -1));
        else if (op.equals("selections")) result.with("selections", t.selections().toString());
        else if (op.equals("dropSocket")) main.client.dropSocket();
        else if (op.equals("networkChanged")) main.client.networkChanged();
        else if (op.equals("status")) result.with("status", status(main.client.status()));
        else if (op.equals("audioState")) tone().setState(req.optString("state"), req.optBoolean("inject", true));
        else if (op.equals("frames")) result.with("frames", frames());
        else if (op.equals("recorded")) result.with("audio", Base64.getEncoder().encodeToString(main.played.recorded()));
        else if (op.equals("resetRecorded")) main.played.reset();
        else if (op.equals("helper")) helper(req.optString("action"), result);
        else if (op.equals("restart")) {
            main.restart();
            // The restarted core's first status, as its observers got it before this answer.
            result.with("status", status(main.client.status()));
        }
        else if (op.equals("selfTest")) main.selfTest.run();
        else if (op.equals("stop")) main.stop("stopping");
        else throw new IllegalArgumentException("unknown op " + op);
    }

    private Obj frames() {
        FramePipe p = main.client.frames();
        return obj("sent", p.framesSent()).with("dropped", p.framesDropped()).with("received", p.framesReceived())
                .with("malformed", p.framesMalformed()).with("underruns", p.underruns())
                .with("played", main.played.framesPlayed()).with("audible", main.played.framesAudible())
                .with("streaming", p.isStreaming())
                .with("injectDropped", main.helperPort == null ? 0 : main.helperPort.framesDropped());
    }

    private ToneAudioPort tone() {
        if (main.tone == null) throw new IllegalStateException("the audio goes through the helper (--helper): use op helper");
        return main.tone;
    }

    /** The fake helper (--helper): die, freeze, start, shutdown (as the app asks), or state. */
    private void helper(String action, Obj result) {
        FakeHelper h = main.helper;
        if (h == null) throw new IllegalStateException("no fake helper: start with --helper fake");
        if (action.equals("die")) h.kill();
        else if (action.equals("freeze")) h.freeze();
        else if (action.equals("start")) {
            h.kill();
            try {
                h.start();
            } catch (IOException e) {
                throw new IllegalStateException("the fake helper cannot listen again: " + e.getMessage());
            }
        } else if (action.equals("shutdown")) main.helperPort.shutdownHelper();
        else if (!action.equals("state")) throw new IllegalArgumentException("unknown helper action " + action);
        JSONArray arrivals = new JSONArray();
        for (double[] a : h.engine().played().arrivals()) {
            try {
                arrivals.put(new JSONArray().put(a[0]).put(a[1] != 0));
            } catch (JSONException e) {
                throw new IllegalStateException(e);
            }
        }
        result.with("running", h.running()).with("captures", h.engine().captures()).with("arrivals", arrivals)
                .with("problem", main.helperPort.problem()).with("note", main.helperPort.note())
                .with("capturing", main.helperPort.capturing()).with("injecting", main.helperPort.injecting());
    }

    private static Obj status(PhoneStatus s) {
        Obj o = obj("kind", "status").with("link", s.link.name()).with("gateway", s.gateway)
                .with("deviceId", s.deviceId).with("lastError", s.lastError).with("audio", s.audio)
                .with("canInject", s.audioCanInject).with("streaming", s.streaming).with("outboxSize", s.outboxSize);
        if (s.call != null) {
            o.with("call", obj("nativeCallId", s.call.nativeCallId).with("callId", s.call.callId)
                    .with("direction", s.call.direction).with("remoteNumber", s.call.remoteNumber).with("state", s.call.state));
        }
        return o;
    }

    private static Obj obj(String key, Object value) {
        return new Obj().with(key, value);
    }

    /** A JSONObject whose put does not throw the checked JSONException (our keys are never null). */
    static final class Obj extends JSONObject {
        Obj with(String key, Object value) {
            try {
                putOpt(key, value);
            } catch (JSONException e) {
                throw new IllegalStateException(e);
            }
            return this;
        }
    }

    private static void emit(JSONObject o) {
        synchronized (System.out) {
            System.out.println(o.toString());
            System.out.flush();
        }
    }
}
