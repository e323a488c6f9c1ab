package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import org.junit.Test;

/** The app's provider's answers, and who may get them. */
public class HelperDirectoryTest {
    private Runnable death;
    private int announcedUid = -1;

    private final HelperDirectory directory = new HelperDirectory("app-binder", new HelperDirectory.Binders() {
        @Override
        public HelperDirectory.Helper helper(final Object binder, int announcerUid, final HelperDirectory d) throws IOException {
            if ("dead".equals(binder)) throw new IOException("DeadObjectException");
            announcedUid = announcerUid;
            final HelperDirectory.Helper h = new HelperDirectory.Helper() {
                @Override
                public HelperLink.Connection open() throws IOException {
                    throw new IOException("opened " + binder);
                }

                @Override
                public Object binder() {
                    return binder;
                }
            };
            death = new Runnable() {
                @Override
                public void run() {
                    d.gone(h);
                }
            };
            return h;
        }
    });

    private static HelperChannel.MapExtras announcement(Object binder, int version) {
        HelperChannel.MapExtras e = new HelperChannel.MapExtras();
        e.putInt(HelperChannel.KEY_VERSION, version);
        e.putBinder(HelperChannel.KEY_HELPER, binder);
        return e;
    }

    @Test
    public void theShellsAnnouncementIsHeldAndAnsweredWithTheAppsBinder() throws Exception {
        final int[] told = {0};
        directory.setOnAnnounced(new Runnable() {
            @Override
            public void run() {
                told[0]++;
            }
        });
        HelperChannel.MapExtras reply = new HelperChannel.MapExtras();
        directory.call(PeerPolicy.SHELL_UID, HelperChannel.ANNOUNCE, announcement("helper-1", HelperChannel.VERSION), reply);
        assertEquals("app-binder", reply.getBinder(HelperChannel.KEY_APP));
        assertEquals(HelperChannel.VERSION, reply.getInt(HelperChannel.KEY_VERSION, 0));
        assertEquals(1, told[0]);
        assertEquals(PeerPolicy.SHELL_UID, announcedUid);
        try {
            directory.link().open();
            fail("the fake helper opens nothing");
        } catch (IOException e) {
            assertEquals("opened helper-1", e.getMessage());
        }
        HelperChannel.MapExtras current = new HelperChannel.MapExtras();
        directory.call(PeerPolicy.SHELL_UID, HelperChannel.CURRENT, new HelperChannel.MapExtras(), current);
        assertEquals("helper-1", current.getBinder(HelperChannel.KEY_HELPER));
    }

    @Test
    public void aLaterAnnouncementReplacesTheEarlierAndTheEarliersDeathChangesNothing() {
        directory.call(PeerPolicy.SHELL_UID, HelperChannel.ANNOUNCE, announcement("helper-1", HelperChannel.VERSION), new HelperChannel.MapExtras());
        Runnable firstDies = death;
        directory.call(PeerPolicy.SHELL_UID, HelperChannel.ANNOUNCE, announcement("helper-2", HelperChannel.VERSION), new HelperChannel.MapExtras());
        firstDies.run();
        assertEquals("helper-2", directory.current().binder());
        death.run();
        assertNull(directory.current());
        try {
            directory.link().open();
            fail("no helper: nothing to open");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("no audio helper has announced itself"));
        }
        HelperChannel.MapExtras current = new HelperChannel.MapExtras();
        directory.call(PeerPolicy.SHELL_UID, HelperChannel.CURRENT, new HelperChannel.MapExtras(), current);
        assertNull(current.getBinder(HelperChannel.KEY_HELPER));
    }

    @Test
    public void nobodyButTheShellMayAnnounceOrAsk() {
        for (int uid : new int[] {0, 1000, 10123, 10999, 1010123}) {
            for (String method : new String[] {HelperChannel.ANNOUNCE, HelperChannel.CURRENT, "anything"}) {
                try {
                    directory.call(uid, method, announcement("intruder", HelperChannel.VERSION), new HelperChannel.MapExtras());
                    fail("uid " + uid + " was let " + method);
                } catch (SecurityException e) {
                    assertTrue(e.getMessage(), e.getMessage().contains("uid " + uid + " may not"));
                }
            }
        }
        assertNull("nothing was held", directory.current());
    }

    @Test
    public void whatTheAppCannotTakeIsRefusedWithTheReason() {
        String[] reasons = new String[4];
        Object[][] cases = {{"helper-1", 2}, {null, HelperChannel.VERSION}, {"dead", HelperChannel.VERSION}};
        for (int i = 0; i < cases.length; i++) {
            try {
                directory.call(PeerPolicy.SHELL_UID, HelperChannel.ANNOUNCE, announcement(cases[i][0], (Integer) cases[i][1]), new HelperChannel.MapExtras());
                fail("case " + i + " was taken");
            } catch (IllegalArgumentException e) {
                reasons[i] = e.getMessage();
            }
        }
        try {
            directory.call(PeerPolicy.SHELL_UID, "open-sesame", new HelperChannel.MapExtras(), new HelperChannel.MapExtras());
            fail("an unknown method was taken");
        } catch (IllegalArgumentException e) {
            reasons[3] = e.getMessage();
        }
        assertTrue(reasons[0], reasons[0].contains("version 1 of the helper channel, not 2"));
        assertTrue(reasons[1], reasons[1].contains("no helper Binder"));
        assertTrue(reasons[2], reasons[2].contains("already dead"));
        assertTrue(reasons[3], reasons[3].contains("unknown method open-sesame"));
        assertNull(directory.current());
    }
}
