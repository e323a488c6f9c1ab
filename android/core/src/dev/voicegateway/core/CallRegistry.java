package dev.voicegateway.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The phone's calls as the protocol sees them: which platform call is which gateway call, and the
 * protocol event each change becomes. One call at a time is reported (the spec's limit): a call made
 * by hand on the phone is not reported, and a second incoming call while another call is in
 * progress is rejected at once and not reported. Kept in storage, so a restart of the app still
 * knows the gateway's callId of the call in progress. Used on the core's clock only.
 */
public final class CallRegistry {
    static final String FILE = "calls.json";
    /** How long a dial may take to show up as a platform call before it counts as failed. */
    public static final long DIAL_TIMEOUT_MS = 10000;
    /**
     * After a restart of the app, how long a stored call may take to reappear on the platform before
     * it counts as ended: Telecom binds the in-call service again a moment after the app starts.
     */
    public static final long RESTORE_GRACE_MS = 5000;

    /** Receives every event the registry makes, already complete, in order. */
    public interface Events {
        void onEvent(JSONObject event, TrackedCall call);
    }

    /** One platform call and what the protocol knows of it. */
    public static final class TrackedCall {
        public final String nativeCallId;
        public final boolean incoming;
        public final String number;
        /** Telecom state of the last change seen; -1 before the first. */
        public int state = -1;
        public String callId;
        public boolean everActive;
        public boolean rejectRequested;
        /** False for calls the gateway never hears of (made by hand, or waiting behind another call). */
        public final boolean reported;

        TrackedCall(String nativeCallId, boolean incoming, String number, String callId, boolean reported) {
            this.nativeCallId = nativeCallId;
            this.incoming = incoming;
            this.number = number;
            this.callId = callId;
            this.reported = reported;
        }

        public String direction() {
            return incoming ? "incoming" : "outgoing";
        }

        public boolean isFinal() {
            return CallEvents.isFinal(state);
        }
    }

    private static final class PendingDial {
        final String callId;
        final String number;
        final Clock.Timer deadline;

        PendingDial(String callId, String number, Clock.Timer deadline) {
            this.callId = callId;
            this.number = number;
            this.deadline = deadline;
        }
    }

    private final Storage storage;
    private final Clock clock;
    private final Telephony telephony;
    private final Events events;
    private final Log log;
    private final Map<String, TrackedCall> calls = new LinkedHashMap<String, TrackedCall>();
    /** The restore's grace timers, cancelled by {@link #close}. */
    private final List<Clock.Timer> timers = new ArrayList<Clock.Timer>();
    /** Platform calls seen since this registry started (a stored call that reappears is not ended). */
    private final java.util.Set<String> seen = new java.util.HashSet<String>();
    private PendingDial pendingDial;

    public CallRegistry(Storage storage, Clock clock, Telephony telephony, Events events, Log log) {
        this.storage = storage;
        this.clock = clock;
        this.telephony = telephony;
        this.events = events;
        this.log = log;
    }

    /**
     * Loads what was stored and reconciles it with the platform's calls: a stored call the
     * platform does not show again within {@link #RESTORE_GRACE_MS} ended while the app was not
     * running; a platform call nobody stored was not the gateway's.
     */
    public void restore(List<NativeCall> platformCalls) {
        Map<String, NativeCall> now = new LinkedHashMap<String, NativeCall>();
        for (NativeCall c : platformCalls) now.put(c.id, c);
        for (TrackedCall stored : load()) calls.put(stored.nativeCallId, stored);
        for (final TrackedCall t : new ArrayList<TrackedCall>(calls.values())) {
            if (now.containsKey(t.nativeCallId)) continue;
            final int stateAtRestore = t.state;
            timers.add(clock.schedule(new Runnable() {
                @Override
                public void run() {
                    // Still as stored and still unseen: Telecom never handed it back.
                    if (calls.get(t.nativeCallId) != t || t.state != stateAtRestore || seen.contains(t.nativeCallId)) return;
                    onCallChanged(new NativeCall(t.nativeCallId, t.incoming, t.number, TelecomStates.DISCONNECTED,
                            TelecomStates.CAUSE_OTHER, "the call ended while the app was not running"));
                }
            }, RESTORE_GRACE_MS));
        }
        for (NativeCall c : now.values()) {
            boolean ringing = c.state == TelecomStates.RINGING || c.state == TelecomStates.SIMULATED_RINGING;
            if (calls.containsKey(c.id) || (c.incoming && ringing)) {
                // A stored call goes on; a call ringing now is what started the app: both are tracked as usual.
                onCallChanged(c);
            } else {
                TrackedCall t = new TrackedCall(c.id, c.incoming, c.number, null, false);
                t.state = c.state;
                if (!t.isFinal()) calls.put(c.id, t);
            }
        }
        save();
    }

    /** The platform's call changed (or appeared). */
    public void onCallChanged(NativeCall now) {
        seen.add(now.id);
        TrackedCall t = calls.get(now.id);
        if (t == null) {
            if (CallEvents.isFinal(now.state)) return;
            t = track(now);
            calls.put(now.id, t);
        }
        int previous = t.state;
        boolean wasActive = t.everActive;
        t.state = now.state;
        if (now.state == TelecomStates.ACTIVE) t.everActive = true;
        if (t.reported) {
            CallEvents.Change change = CallEvents.forChange(previous, now, wasActive, t.rejectRequested);
            if (change != null) emit(t, change.event, change.payload);
        }
        if (t.isFinal()) calls.remove(t.nativeCallId);
        save();
    }

    private TrackedCall track(NativeCall c) {
        if (c.incoming) {
            if (pendingDial != null || otherCallInProgress(c.id)) {
                log.log(Log.INFO, "a second call rings while the phone has a call: rejecting it", null);
                try {
                    telephony.reject(c.id);
                } catch (CommandRefused e) {
                    log.log(Log.WARN, "could not reject a waiting call: " + e.getMessage(), null);
                }
                return new TrackedCall(c.id, true, c.number, null, false);
            }
            return new TrackedCall(c.id, true, c.number, null, true);
        }
        PendingDial dial = pendingDial;
        if (dial != null) {
            pendingDial = null;
            dial.deadline.cancel();
            return new TrackedCall(c.id, false, c.number.isEmpty() ? dial.number : c.number, dial.callId, true);
        }
        log.log(Log.INFO, "an outgoing call made on the phone itself is not reported to the gateway", null);
        return new TrackedCall(c.id, false, c.number, null, false);
    }

    private boolean otherCallInProgress(String exceptId) {
        for (TrackedCall t : calls.values()) if (!t.nativeCallId.equals(exceptId) && !t.isFinal()) return true;
        return false;
    }

    /** A dial command was accepted; the next outgoing platform call is its call. */
    public void expectDial(final String callId, String number) {
        if (pendingDial != null) pendingDial.deadline.cancel();
        final Clock.Timer deadline = clock.schedule(new Runnable() {
            @Override
            public void run() {
                PendingDial dial = pendingDial;
                if (dial == null || !dial.callId.equals(callId)) return;
                pendingDial = null;
                log.log(Log.WARN, "the platform never showed the dialled call callId=" + callId, null);
                TrackedCall ghost = new TrackedCall("dial-" + callId, false, dial.number, callId, true);
                JSONObject payload = new JSONObject();
                try {
                    payload.put("reason", "the phone did not start the call within " + DIAL_TIMEOUT_MS / 1000 + " s");
                } catch (JSONException e) {
                    throw new IllegalStateException(e);
                }
                emit(ghost, Protocol.CALL_FAILED, payload);
            }
        }, DIAL_TIMEOUT_MS);
        pendingDial = new PendingDial(callId, number, deadline);
    }

    /** The one reported call that is not over, or null. */
    public TrackedCall current() {
        for (TrackedCall t : calls.values()) if (t.reported && !t.isFinal()) return t;
        return null;
    }

    /** True while the phone has any call (reported or not) or waits for a dialled one to appear. */
    public boolean busy() {
        if (pendingDial != null) return true;
        for (TrackedCall t : calls.values()) if (!t.isFinal()) return true;
        return false;
    }

    /**
     * The call a command names: the reported call with that callId, or the ringing incoming call
     * whose callId the gateway has not named yet (its event.ack may still be on the way).
     */
    public TrackedCall forCommand(String callId) {
        TrackedCall t = current();
        if (t == null) return null;
        if (t.callId == null ? t.incoming : t.callId.equals(callId)) return t;
        return null;
    }

    public void markRejectRequested(TrackedCall call) {
        call.rejectRequested = true;
        save();
    }

    /** The gateway named the call of an acknowledged event. */
    public void onCallIdKnown(String nativeCallId, String callId) {
        TrackedCall t = calls.get(nativeCallId);
        if (t != null && t.callId == null) {
            t.callId = callId;
            save();
        }
    }

    /** Stops every timer (the app's process ends); what is stored stays. */
    public void close() {
        for (Clock.Timer t : timers) t.cancel();
        timers.clear();
        if (pendingDial != null) pendingDial.deadline.cancel();
    }

    /** Forgets every call (unpairing): they belonged to another gateway. */
    public void clear() {
        calls.clear();
        seen.clear();
        if (pendingDial != null) pendingDial.deadline.cancel();
        pendingDial = null;
        save();
    }

    private void emit(TrackedCall call, String event, JSONObject payload) {
        JSONObject e = new JSONObject();
        try {
            e.put("type", "event");
            e.put("eventId", UUID.randomUUID().toString());
            e.put("event", event);
            e.put("nativeCallId", call.nativeCallId);
            if (call.callId != null) e.put("callId", call.callId);
            e.put("direction", call.direction());
            e.put("remoteNumber", call.number);
            e.put("occurredAt", Iso8601.format(clock.now()));
            e.put("payload", payload);
        } catch (JSONException ex) {
            throw new IllegalStateException(ex);
        }
        log.log(Log.INFO, "call event " + event + " callId=" + (call.callId == null ? "-" : call.callId), null);
        events.onEvent(e, call);
    }

    private List<TrackedCall> load() {
        List<TrackedCall> out = new ArrayList<TrackedCall>();
        try {
            String text = storage.read(FILE);
            if (text == null) return out;
            JSONArray array = new JSONArray(text);
            for (int i = 0; i < array.length(); i++) {
                JSONObject o = array.getJSONObject(i);
                TrackedCall t = new TrackedCall(o.getString("nativeCallId"), o.getBoolean("incoming"), o.optString("number", ""),
                        o.isNull("callId") ? null : o.optString("callId", null), o.optBoolean("reported", true));
                t.state = o.optInt("state", -1);
                t.everActive = o.optBoolean("everActive", false);
                t.rejectRequested = o.optBoolean("rejectRequested", false);
                out.add(t);
            }
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot read the stored calls", e);
        } catch (JSONException e) {
            log.log(Log.ERROR, "the stored calls are damaged; ignoring them", e);
        }
        return out;
    }

    private void save() {
        JSONArray array = new JSONArray();
        try {
            for (TrackedCall t : calls.values()) {
                JSONObject o = new JSONObject()
                        .put("nativeCallId", t.nativeCallId)
                        .put("incoming", t.incoming)
                        .put("number", t.number)
                        .put("state", t.state)
                        .put("everActive", t.everActive)
                        .put("rejectRequested", t.rejectRequested)
                        .put("reported", t.reported);
                if (t.callId != null) o.put("callId", t.callId);
                array.put(o);
            }
            storage.write(FILE, array.toString());
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot store the calls", e);
        }
    }

    /** For tests and the status screen: every call being tracked. */
    public List<TrackedCall> all() {
        return new ArrayList<TrackedCall>(calls.values());
    }
}
