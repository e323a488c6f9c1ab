package dev.voicegateway.core.helper;

import dev.voicegateway.core.Clock;
import dev.voicegateway.core.Log;
import java.io.IOException;

/**
 * The helper's side of the rendezvous: announces the helper's Binder to the app's provider, watches
 * the app's process, and announces again as soon as that process is gone, so that an app whose
 * process restarts (killed, updated, crashed) finds the running helper without anyone running the
 * start command again. The call that announces goes through ActivityManager, which starts the app's
 * process when it is not running: the helper never waits for the app to come back by itself.
 * Failures are retried with a doubling delay; when the app's provider has not existed for
 * {@link Config#giveUpMs} (the app was uninstalled: an update takes seconds) or the app refuses this
 * helper's version, {@link Listener#appGone} tells the helper to exit. Runs on its own {@link Clock}.
 */
public final class HelperAnnouncer {
    /** The platform's way to the app: ActivityManager and the provider's call() on the phone. */
    public interface App {
        /** A new, empty request. */
        HelperChannel.Extras extras();

        /**
         * Calls the app's provider. Throws {@link NoApp} when the provider does not exist (the app
         * is not installed for that user), {@link Refused} when the app refused the call (its
         * SecurityException or IllegalArgumentException), another IOException otherwise.
         */
        HelperChannel.Extras call(String method, HelperChannel.Extras request) throws IOException;

        /** Runs {@code onDeath} once when the process behind {@code binder} dies; throws when it is dead already. */
        void watch(Object binder, Runnable onDeath) throws IOException;
    }

    /** The app's provider is not there. */
    public static final class NoApp extends IOException {
        public NoApp(String message) {
            super(message);
        }
    }

    /** The app answered, and said no. */
    public static final class Refused extends IOException {
        public Refused(String message) {
            super(message);
        }
    }

    public interface Listener {
        /** The app holds this helper's Binder now. */
        void announced();

        /** The helper can serve no app any more and should exit; {@code why} is for the log. */
        void appGone(String why);
    }

    public static final class Config {
        /** After the app's process died, and the first delay after a failure. */
        public long firstRetryMs = 500;
        public long maxRetryMs = 30000;
        /** How long the app's provider may be missing before the helper gives up. */
        public long giveUpMs = 120000;
    }

    private final App app;
    private final Clock clock;
    private final Log log;
    private final Config config;
    private final Listener listener;

    // On the clock's thread only.
    private Object self;
    private boolean running;
    private int generation;
    private long delay;
    private long missingSince = -1;
    private Clock.Timer retry;
    private int announcements;

    public HelperAnnouncer(App app, Clock clock, Log log, Config config, Listener listener) {
        this.app = app;
        this.clock = clock;
        this.log = log;
        this.config = config;
        this.listener = listener;
        this.delay = config.firstRetryMs;
    }

    /** Starts announcing {@code helperBinder} (and keeps it announced) until {@link #stop}. */
    public void start(final Object helperBinder) {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                if (running) return;
                self = helperBinder;
                running = true;
                attempt();
            }
        });
    }

    public void stop() {
        clock.execute(new Runnable() {
            @Override
            public void run() {
                running = false;
                generation++;
                if (retry != null) retry.cancel();
            }
        });
    }

    private void attempt() {
        retry = null;
        if (!running) return;
        try {
            HelperChannel.Extras request = app.extras();
            request.putInt(HelperChannel.KEY_VERSION, HelperChannel.VERSION);
            request.putBinder(HelperChannel.KEY_HELPER, self);
            HelperChannel.Extras reply = app.call(HelperChannel.ANNOUNCE, request);
            Object appBinder = reply == null ? null : reply.getBinder(HelperChannel.KEY_APP);
            if (appBinder == null) throw new IOException("the app's provider answered without its Binder");
            final int gen = ++generation;
            app.watch(appBinder, new Runnable() {
                @Override
                public void run() {
                    clock.execute(new Runnable() {
                        @Override
                        public void run() {
                            appDied(gen);
                        }
                    });
                }
            });
            delay = config.firstRetryMs;
            missingSince = -1;
            announcements++;
            log.log(Log.INFO, announcements == 1 ? "announced to the app" : "announced to the app again", null);
            listener.announced();
        } catch (Refused e) {
            give("the app refused this helper: " + e.getMessage());
        } catch (NoApp e) {
            if (missingSince < 0) missingSince = clock.elapsed();
            if (clock.elapsed() - missingSince >= config.giveUpMs) {
                give("the app has been gone for " + (clock.elapsed() - missingSince) / 1000 + " s (" + e.getMessage() + ")");
            } else {
                again("the app's provider is not there (" + e.getMessage() + ")");
            }
        } catch (IOException e) {
            again(e.getMessage());
        } catch (RuntimeException e) {
            // A platform call that threw what it should not: keep trying, the log says what.
            again(e.toString());
        }
    }

    private void appDied(int gen) {
        if (!running || gen != generation) return;
        log.log(Log.INFO, "the app's process ended; announcing again", null);
        delay = config.firstRetryMs;
        schedule(delay);
    }

    private void again(String why) {
        log.log(Log.WARN, "could not announce to the app (" + why + "); again in " + delay + " ms", null);
        schedule(delay);
        delay = Math.min(delay * 2, config.maxRetryMs);
    }

    private void schedule(long ms) {
        if (retry != null) retry.cancel();
        retry = clock.schedule(new Runnable() {
            @Override
            public void run() {
                attempt();
            }
        }, ms);
    }

    private void give(String why) {
        running = false;
        generation++;
        log.log(Log.WARN, why, null);
        listener.appGone(why);
    }
}
