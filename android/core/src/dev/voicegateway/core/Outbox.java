package dev.voicegateway.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Events that wait for their {@code event.ack} (phone-protocol.md, delivery guarantees), oldest
 * first. Every change is written to storage before the event goes out, so an event survives a
 * dropped socket, a restart of the app and a reboot. Not thread-safe: used on the core's clock.
 */
public final class Outbox {
    static final String FILE = "outbox.json";
    /** Days of a phone that cannot reach its gateway; past this the oldest event is given up (logged). */
    public static final int MAX_EVENTS = 10000;

    private final Storage storage;
    private final Log log;
    private final List<JSONObject> events = new ArrayList<JSONObject>();

    public Outbox(Storage storage, Log log) {
        this.storage = storage;
        this.log = log;
        load();
    }

    public int size() {
        return events.size();
    }

    /** The waiting events, oldest first (copies of the list, the same objects). */
    public List<JSONObject> pending() {
        return new ArrayList<JSONObject>(events);
    }

    public void add(JSONObject event) {
        events.add(event);
        while (events.size() > MAX_EVENTS) {
            JSONObject dropped = events.remove(0);
            log.log(Log.ERROR, "outbox full: gave up event " + dropped.optString("event") + " eventId=" + dropped.optString("eventId"), null);
        }
        save();
    }

    /** Removes the acknowledged event and returns it, or null when it was not waiting. */
    public JSONObject ack(String eventId) {
        for (Iterator<JSONObject> it = events.iterator(); it.hasNext();) {
            JSONObject e = it.next();
            if (eventId.equals(e.optString("eventId"))) {
                it.remove();
                save();
                return e;
            }
        }
        return null;
    }

    /** Puts the callId the gateway named on the waiting events of that call that lack one. */
    public void assignCallId(String nativeCallId, String callId) {
        boolean changed = false;
        for (JSONObject e : events) {
            if (nativeCallId.equals(e.optString("nativeCallId")) && e.optString("callId", "").isEmpty()) {
                try {
                    e.put("callId", callId);
                } catch (JSONException ex) {
                    throw new IllegalStateException(ex);
                }
                changed = true;
            }
        }
        if (changed) save();
    }

    public void clear() {
        events.clear();
        save();
    }

    private void load() {
        String text;
        try {
            text = storage.read(FILE);
        } catch (IOException e) {
            log.log(Log.ERROR, "cannot read the outbox; starting empty", e);
            return;
        }
        if (text == null) return;
        try {
            JSONArray array = new JSONArray(text);
            for (int i = 0; i < array.length(); i++) events.add(array.getJSONObject(i));
        } catch (JSONException e) {
            log.log(Log.ERROR, "the stored outbox is damaged; starting empty", e);
        }
    }

    private void save() {
        JSONArray array = new JSONArray();
        for (JSONObject e : events) array.put(e);
        try {
            storage.write(FILE, array.toString());
        } catch (IOException e) {
            // The events stay in memory and go out on this socket; only a restart could lose them.
            log.log(Log.ERROR, "cannot write the outbox", e);
        }
    }
}
