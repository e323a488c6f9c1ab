package dev.voicegateway.core.adb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

/** NsdManager resolves one service at a time: the queue never asks for a second while one runs. */
public class ResolveQueueTest {
    @Test
    public void resolvesOneAtATimeInTheOrderFound() {
        ResolveQueue q = new ResolveQueue();
        assertEquals("adb-phoneA", q.found("adb-phoneA"));
        assertNull("a second resolve while one runs would fail with FAILURE_ALREADY_ACTIVE", q.found("adb-phoneB"));
        assertNull(q.found("adb-ours"));
        assertNull("found twice, queued once", q.found("adb-phoneB"));
        assertEquals(2, q.waiting());
        assertEquals("adb-phoneB", q.done("adb-phoneA"));
        assertEquals("adb-ours", q.done("adb-phoneB"));
        assertNull(q.done("adb-ours"));
        assertNull(q.resolving());
    }

    @Test
    public void aLostServiceIsNotResolvedAndABusyOneIsRetriedFirst() {
        ResolveQueue q = new ResolveQueue();
        assertEquals("a", q.found("a"));
        q.found("b");
        q.found("c");
        q.lost("b");
        q.busy("a");
        assertNull(q.resolving());
        assertEquals("a", q.retry());
        assertEquals("c", q.done("a"));
        assertNull("a done for a name not in flight starts nothing new", q.done("zzz"));
        assertEquals("c", q.resolving());
    }
}
