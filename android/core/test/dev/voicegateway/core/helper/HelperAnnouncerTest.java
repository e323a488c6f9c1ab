package dev.voicegateway.core.helper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.voicegateway.core.Log;
import dev.voicegateway.core.ManualClock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The helper's announcements, tick by tick: retries, the app's process dying, the app gone. */
public class HelperAnnouncerTest {
    /** The app as the helper reaches it: scripted answers, the calls it got, its process's death. */
    private static final class App implements HelperAnnouncer.App {
        final List<Long> calls = new ArrayList<Long>();
        final List<Runnable> deaths = new ArrayList<Runnable>();
        final ManualClock clock;
        IOException failure;
        Object lastHelper;

        App(ManualClock clock) {
            this.clock = clock;
        }

        @Override
        public HelperChannel.Extras extras() {
            return new HelperChannel.MapExtras();
        }

        @Override
        public HelperChannel.Extras call(String method, HelperChannel.Extras request) throws IOException {
            calls.add(clock.elapsed());
            assertEquals(HelperChannel.ANNOUNCE, method);
            assertEquals(HelperChannel.VERSION, request.getInt(HelperChannel.KEY_VERSION, 0));
            lastHelper = request.getBinder(HelperChannel.KEY_HELPER);
            if (failure != null) throw failure;
            HelperChannel.MapExtras reply = new HelperChannel.MapExtras();
            reply.putBinder(HelperChannel.KEY_APP, "app-binder");
            return reply;
        }

        @Override
        public void watch(Object binder, Runnable onDeath) {
            assertEquals("app-binder", binder);
            deaths.add(onDeath);
        }

        void processDies() {
            for (Runnable r : new ArrayList<Runnable>(deaths)) r.run();
            deaths.clear();
        }
    }

    private final ManualClock clock = new ManualClock();
    private final App app = new App(clock);
    private final List<String> gone = new ArrayList<String>();
    private int announced;

    private HelperAnnouncer announcer() {
        HelperAnnouncer.Config c = new HelperAnnouncer.Config();
        c.firstRetryMs = 500;
        c.maxRetryMs = 4000;
        c.giveUpMs = 10000;
        return new HelperAnnouncer(app, clock, Log.NONE, c, new HelperAnnouncer.Listener() {
            @Override
            public void announced() {
                announced++;
            }

            @Override
            public void appGone(String why) {
                gone.add(why);
            }
        });
    }

    @Test
    public void announcesItsBinderAtOnceAndAgainWhenTheAppsProcessDies() {
        HelperAnnouncer a = announcer();
        a.start("helper-binder");
        clock.advance(0);
        assertEquals(1, announced);
        assertEquals("helper-binder", app.lastHelper);
        app.processDies();
        clock.advance(499);
        assertEquals("not before the first delay", 1, app.calls.size());
        clock.advance(1);
        assertEquals(2, announced);
        assertEquals("the new process is watched", 1, app.deaths.size());
    }

    @Test
    public void failuresAreRetriedWithADoublingDelayUpToTheMost() {
        app.failure = new IOException("DeadObjectException");
        HelperAnnouncer a = announcer();
        a.start("helper-binder");
        clock.advance(0);
        clock.advance(20000);
        // 0, then +500, +1000, +2000, +4000, +4000, ...
        assertEquals(Long.valueOf(0), app.calls.get(0));
        assertEquals(Long.valueOf(500), app.calls.get(1));
        assertEquals(Long.valueOf(1500), app.calls.get(2));
        assertEquals(Long.valueOf(3500), app.calls.get(3));
        assertEquals(Long.valueOf(7500), app.calls.get(4));
        assertEquals(Long.valueOf(11500), app.calls.get(5));
        assertTrue("a transient failure never gives up", gone.isEmpty());
        app.failure = null;
        clock.advance(4000);
        assertEquals(1, announced);
        // After a success the delay starts again from the first.
        app.processDies();
        clock.advance(500);
        assertEquals(2, announced);
    }

    @Test
    public void anAppWhoseProviderStaysMissingIsGivenUpOn() {
        app.failure = new HelperAnnouncer.NoApp("no provider");
        HelperAnnouncer a = announcer();
        a.start("helper-binder");
        clock.advance(9999);
        assertTrue("an update takes seconds: not yet", gone.isEmpty());
        clock.advance(10000);
        assertEquals(1, gone.size());
        assertTrue(gone.get(0), gone.get(0).contains("gone for"));
        int calls = app.calls.size();
        clock.advance(60000);
        assertEquals("nothing more once given up", calls, app.calls.size());
    }

    @Test
    public void theProviderComingBackBeforeTheDeadlineResetsIt() {
        app.failure = new HelperAnnouncer.NoApp("no provider");
        HelperAnnouncer a = announcer();
        a.start("helper-binder");
        clock.advance(7500);
        app.failure = null;
        clock.advance(4000);
        assertEquals(1, announced);
        app.failure = new HelperAnnouncer.NoApp("no provider");
        app.processDies();
        clock.advance(9000);
        assertTrue("the missing time counts from the new absence", gone.isEmpty());
    }

    @Test
    public void anAppThatRefusesThisHelperEndsIt() {
        app.failure = new HelperAnnouncer.Refused("this app speaks version 2 of the helper channel, not 1");
        HelperAnnouncer a = announcer();
        a.start("helper-binder");
        clock.advance(0);
        assertEquals(1, gone.size());
        assertTrue(gone.get(0), gone.get(0).contains("refused"));
        clock.advance(60000);
        assertEquals(1, app.calls.size());
    }

    @Test
    public void stoppingEndsTheRetriesAndIgnoresALaterDeath() {
        HelperAnnouncer a = announcer();
        a.start("helper-binder");
        clock.advance(0);
        a.stop();
        clock.advance(0);
        app.processDies();
        clock.advance(60000);
        assertEquals(1, app.calls.size());
        assertTrue("stopping is not the app going away", gone.isEmpty());
    }
}
