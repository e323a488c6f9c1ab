package dev.voicegateway.core.adb;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.adb.CodeEntry.State;
import org.junit.Test;

/** The code typed into the notification while the system's pairing dialog is open. */
public class CodeEntryTest {
    private static final long T0 = 1000000L;

    @Test
    public void aCodeIsTakenOnlyOnceTheDialogIsFoundAndOnlyAsSixDigits() {
        CodeEntry e = new CodeEntry(T0, CodeEntry.DEFAULT_TIMEOUT_MS);
        assertEquals(State.LOOKING_FOR_DIALOG, e.state());
        assertNull("before the dialog's port is known there is nowhere to send it", e.typed("123456", T0 + 1000));
        assertTrue(e.prompt().contains("Pair device with pairing code"));
        e.pairingPort(37111, T0 + 2000);
        assertEquals(State.READY_FOR_CODE, e.state());
        assertTrue(e.prompt().contains("six-digit"));
        assertNull(e.typed("12345", T0 + 3000));
        assertNull(e.typed("1234567", T0 + 3000));
        assertNull(e.typed("12a456", T0 + 3000));
        assertNull(e.typed("", T0 + 3000));
        assertNull(e.typed(null, T0 + 3000));
        assertTrue(e.prompt().contains("six digits"));
        assertFalse("what was typed is not echoed (it may be most of the code)", e.prompt().contains("1234"));
        assertEquals(State.READY_FOR_CODE, e.state());
        // The dialog groups the digits: spaces are fine.
        assertEquals("123456", e.typed(" 123 456 ", T0 + 4000));
        assertEquals(State.PAIRING, e.state());
        assertEquals(37111, e.port());
        assertNull("one pairing at a time", e.typed("654321", T0 + 4500));
        e.paired();
        assertEquals(State.PAIRED, e.state());
        assertTrue(e.finished());
    }

    @Test
    public void theDialogClosingForgetsItsPortAndAReopenedOneIsUsed() {
        CodeEntry e = new CodeEntry(T0, 60000);
        e.pairingPort(40001, T0);
        e.pairingPort(-1, T0 + 10);
        assertEquals(State.LOOKING_FOR_DIALOG, e.state());
        assertNull(e.typed("111111", T0 + 20));
        e.pairingPort(40002, T0 + 30);
        assertEquals("111111", e.typed("111-111", T0 + 40));
        assertEquals(40002, e.port());
    }

    @Test
    public void aRefusedCodeEndsTheAttemptWithTheReason() {
        CodeEntry e = new CodeEntry(T0, 60000);
        e.pairingPort(40001, T0);
        e.typed("000000", T0 + 1);
        e.failed("the pairing code was wrong.");
        assertEquals(State.FAILED, e.state());
        assertTrue(e.prompt().contains("the pairing code was wrong"));
        assertNull(e.typed("123456", T0 + 2));
    }

    @Test
    public void itTimesOutWithoutACodeButNotWhilePairing() {
        CodeEntry e = new CodeEntry(T0, 60000);
        assertFalse(e.expire(T0 + 59999));
        assertTrue(e.expire(T0 + 60000));
        assertEquals(State.TIMED_OUT, e.state());
        assertNull(e.typed("123456", T0 + 60001));
        assertTrue(e.prompt().contains("timed out"));

        CodeEntry busy = new CodeEntry(T0, 60000);
        busy.pairingPort(40001, T0);
        busy.typed("123456", T0 + 59000);
        assertFalse("a pairing under way is let finish", busy.expire(T0 + 61000));
        busy.paired();
        assertEquals(State.PAIRED, busy.state());
    }
}
