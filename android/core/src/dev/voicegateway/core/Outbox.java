package dev.voicegateway.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Events that wait for their {@code event.ack} (phone-protocol.md, delivery guarantees), oldest
 * first. Kept as an append-only log in private storage, one line per change: an event is written
 * (and synced) before it goes out, so it survives a dropped socket, a restart of the app and a
 * reboot; an ack or a callId named later is one more short line. The log is rewritten whole only
 * when it has grown to several times what still waits, so a backlog of N events costs O(N) to
 * write and acknowledge, not O(N²). Not thread-safe: used on the core's clock.
 */
public final class Outbox {
    static final String FILE = "outbox.log";
    /** The outbox of versions before the log: read once, then replaced by the log. */
    static final String OLD_FILE = "outbox.json";
    /** Days of a phone that cannot reach its gateway; past this the oldest event is given up (logged). */
    public static final int MAX_EVENTS = 10000;

    private static final char ADD = '+';
    private static final char ACK = '-';
    private static final char CALL_ID = '=';

    private final Storage storage;
    private final Log log;
    private final Map<String, JSONObject> events = new LinkedHashMap<String, JSONObject>();
    /** Lines in the log now, to know when rewriting it pays. */
    private int records;

    public Outbox(Storage storage, Log log) {
        this.storage = storage;
        this.log = log;
        load();
    }

    public int size() {
        return events.size();
    }

    /** The waiting events, oldest first (a new list of the same objects). */
    public List<JSONObject> pending() {
        return new ArrayList<JSONObject>(events.values());
    }

    public void add(JSONObject event) {
        events.put(event.optString("eventId"), event);
        append(ADD + event.toString(), true);
        while (events.size() > MAX_EVENTS) {
            Iterator<JSONObject> oldest = events.values().iterator();
            JSONObject dropped = oldest.next();
            oldest.remove();
            log.log(Log.ERROR, "outbox full: gave up event " + dropped.optString("event") + " eventId=" + dropped.optString("eventId"), null);
            append(ACK + dropped.optString("eventId"), false);
        }
    }

    /** Removes the acknowledged event and returns it, or null when it was not waiting. */
    public JSONObject ack(String eventId) {
        JSONObject e = events.remove(eventId);
        if (e == null) return null;
        // Not synced: an ack lost in a crash only means the event is sent once more, and the
        // gateway applies each eventId once.
        append(ACK + eventId, false);
        return e;
    }

    /** Puts the callId the gateway named on the waiting events of that call that lack one. */
    public void assignCallId(String nativeCallId, String callId) {
        if (applyCallId(nativeCallId, callId)) {
            try {
                append(CALL_ID + new JSONObject().put("nativeCallId", nativeCallId).put("callId", callId).toString(), false);
            } catch (JSONException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public void clear() {
        events.clear();
        rewrite();
    }

    private boolean applyCallId(String nativeCallId, String callId) {
        boolean changed = false;
        for (JSONObject e : events.values()) {
            if (nativeCallId.equals(e.optString("nativeCallId")) && e.optString("callId", "").isEmpty()) {
                try {
                    e.put("callId", callId);
                } catch (JSONException ex) {
                    throw new IllegalStateException(ex);
                }
                changed = true;
            }
        }
        return changed;
    }

    private void append(String record, boolean sync) {
        try {
            storage.append(FILE, record + "\n", sync);
            records++;
        } catch (IOException e) {
            // The events stay in memory and go out on this socket; only a restart could lose them.
            log.log(Log.ERROR, "cannot write the outbox", e);
        }
        if (records > 4 * events.size() + 64) rewrite();
    }

    /** Replaces the log by one line per waiting event (their callIds included). */
    private void rewrite() {
        StringBuilder text = new StringBuilder();
        for (JSONObject e : events.values()) text.append(ADD).append(e.toString()).append('\n');
        try {
            storage.write(FILE, text.toString());
            records = events.size();
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot rewrite the outbox", e);
        }
    }

    private void load() {
        try {
            String old = storage.read(OLD_FILE);
            if (old != null) {
                loadOld(old);
                rewrite();
                storage.delete(OLD_FILE);
                return;
            }
            String text = storage.read(FILE);
            if (text == null) return;
            int damaged = 0;
            for (String line : text.split("\n")) {
                if (line.isEmpty()) continue;
                if (!replay(line)) damaged++;
                records++;
            }
            // A line cut short by a crash of the phone is the last one written: it was never sent.
            if (damaged > 0) log.log(Log.WARN, "skipped " + damaged + " damaged outbox line(s)", null);
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot read the outbox; starting empty", e);
        }
    }

    private boolean replay(String line) {
        try {
            char kind = line.charAt(0);
            String rest = line.substring(1);
            if (kind == ADD) {
                JSONObject e = new JSONObject(rest);
                events.put(e.optString("eventId"), e);
            } else if (kind == ACK) {
                events.remove(rest);
            } else if (kind == CALL_ID) {
                JSONObject named = new JSONObject(rest);
                applyCallId(named.getString("nativeCallId"), named.getString("callId"));
            } else {
                return false;
            }
            return true;
        } catch (JSONException e) {
            return false;
        }
    }

    private void loadOld(String text) {
        try {
            JSONArray array = new JSONArray(text);
            for (int i = 0; i < array.length(); i++) {
                JSONObject e = array.getJSONObject(i);
                events.put(e.optString("eventId"), e);
            }
        } catch (JSONException e) {
            log.log(Log.ERROR, "the stored outbox is damaged; starting empty", e);
        }
    }
}
