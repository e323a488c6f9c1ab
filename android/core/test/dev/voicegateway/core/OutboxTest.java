package dev.voicegateway.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import org.json.JSONException;
import org.json.JSONObject;
import org.junit.Test;

/** The durable event queue: order, acks, callIds named late, and a restart in between. */
public class OutboxTest {
    private static JSONObject event(String id, String nativeCallId) throws JSONException {
        return new JSONObject().put("type", "event").put("eventId", id).put("event", "call.ringing").put("nativeCallId", nativeCallId);
    }

    @Test
    public void eventsSurviveARestartInOrderUntilAcknowledged() throws Exception {
        File dir = Files.createTempDirectory("outbox").toFile();
        Outbox first = new Outbox(new FileStorage(dir), Log.NONE);
        first.add(event("e1", "n1"));
        first.add(event("e2", "n1"));
        first.add(event("e3", "n2"));
        assertEquals("e2", first.ack("e2").optString("eventId"));

        Outbox afterRestart = new Outbox(new FileStorage(dir), Log.NONE);
        assertEquals(2, afterRestart.size());
        assertEquals("e1", afterRestart.pending().get(0).optString("eventId"));
        assertEquals("e3", afterRestart.pending().get(1).optString("eventId"));
        assertNull("an ack of an event no longer waiting", afterRestart.ack("e2"));
    }

    @Test
    public void theCallIdNamedInAnAckReachesTheWaitingEventsOfThatCall() throws Exception {
        MemoryStorage disk = new MemoryStorage();
        Outbox box = new Outbox(disk, Log.NONE);
        box.add(event("e1", "n1"));
        box.add(event("e2", "n1"));
        box.add(event("e3", "n2"));
        box.ack("e1");
        box.assignCallId("n1", "call_1");
        assertEquals("call_1", box.pending().get(0).optString("callId"));
        assertEquals("", box.pending().get(1).optString("callId", ""));
        assertEquals("call_1", new Outbox(disk, Log.NONE).pending().get(0).optString("callId"));
    }

    @Test
    public void aDamagedLogKeepsWhatCanBeRead() throws Exception {
        MemoryStorage disk = new MemoryStorage();
        disk.write(Outbox.FILE, "+" + event("e1", "n1") + "\n?junk\n+{\"eventId\": \"e2\", \"ev");
        Outbox box = new Outbox(disk, Log.NONE);
        assertEquals("the line a crash cut short is skipped", 1, box.size());
        assertEquals("e1", box.pending().get(0).optString("eventId"));
    }

    @Test
    public void theOutboxOfAnEarlierVersionIsTakenOver() throws Exception {
        MemoryStorage disk = new MemoryStorage();
        disk.write(Outbox.OLD_FILE, "[" + event("e1", "n1") + "," + event("e2", "n1") + "]");
        Outbox box = new Outbox(disk, Log.NONE);
        assertEquals(2, box.size());
        assertNull(disk.read(Outbox.OLD_FILE));
        assertEquals(2, new Outbox(disk, Log.NONE).size());
    }

    @Test
    public void aBacklogCostsWritesInProportionToItsSize() throws Exception {
        MemoryStorage disk = new MemoryStorage();
        Outbox box = new Outbox(disk, Log.NONE);
        int n = 5000;
        long eventChars = 0;
        for (int i = 0; i < n; i++) {
            JSONObject e = event("e" + i, "n" + (i % 7));
            eventChars += e.toString().length();
            box.add(e);
        }
        box.assignCallId("n3", "call_3");
        for (int i = 0; i < n; i++) box.ack("e" + i);
        assertEquals(0, box.size());
        // Each event written about once, each ack one short line: not the whole outbox per ack.
        assertTrue("wrote " + disk.written + " characters for " + eventChars, disk.written < 4 * eventChars);
        assertTrue("synced " + disk.syncs + " times", disk.syncs < n + 200);
        assertEquals(0, new Outbox(disk, Log.NONE).size());
    }

    @Test
    public void callIdsNamedLateSurviveARestartOfTheLog() throws Exception {
        MemoryStorage disk = new MemoryStorage();
        Outbox box = new Outbox(disk, Log.NONE);
        box.add(event("e1", "n1"));
        box.add(event("e2", "n1"));
        box.assignCallId("n1", "call_1");
        box.ack("e1");
        Outbox again = new Outbox(disk, Log.NONE);
        assertEquals(1, again.size());
        assertEquals("call_1", again.pending().get(0).optString("callId"));
    }
}
