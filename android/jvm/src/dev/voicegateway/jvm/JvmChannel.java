package dev.voicegateway.jvm;

import dev.voicegateway.core.helper.HelperAnnouncer;
import dev.voicegateway.core.helper.HelperChannel;
import dev.voicegateway.core.helper.HelperDirectory;
import dev.voicegateway.core.helper.HelperLink;
import dev.voicegateway.core.helper.PeerPolicy;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * The helper channel on the host, in one process: what Binder, ActivityManager and the app's
 * ContentProvider do on the phone. Binders are {@link JvmBinder}s that can die; a call carries the
 * caller's uid as Binder.getCallingUid() would; the app's process can be restarted (a new
 * {@link HelperDirectory} and app Binder, the old one dying) or the app uninstalled. The pure
 * rendezvous ({@link HelperDirectory}, {@link HelperAnnouncer}) is the same code the phone runs.
 */
final class JvmChannel {
    /** The host's "app": its uid and process name, as the helper's PeerPolicy expects them. */
    static final int APP_UID = 10123;
    static final String APP_PACKAGE = "dev.voicegateway.app";
    /** What /proc/<pid>/cmdline says of a helper started with app_process. */
    static final String HELPER_PROCESS = "app_process";

    /** A Binder: the object it reaches (null for a token), and its death. */
    static final class JvmBinder {
        final Target target;
        private final List<Runnable> recipients = new ArrayList<Runnable>();
        private boolean dead;

        JvmBinder(Target target) {
            this.target = target;
        }

        /** As IBinder.linkToDeath: throws when the process is gone already. */
        synchronized void linkToDeath(Runnable recipient) throws IOException {
            if (dead) throw new IOException("DeadObjectException");
            recipients.add(recipient);
        }

        /** Its process died: every recipient runs, once. */
        void die() {
            List<Runnable> all;
            synchronized (this) {
                if (dead) return;
                dead = true;
                all = new ArrayList<Runnable>(recipients);
                recipients.clear();
            }
            for (Runnable r : all) r.run();
        }

        synchronized boolean dead() {
            return dead;
        }
    }

    /** What the helper's Binder does on OPEN, for a caller of {@code callingUid}: the caller's end, or IOException (REFUSED). */
    interface Target {
        Socket open(int callingUid, String callingProcess) throws IOException;
    }

    private volatile HelperDirectory directory;
    private volatile JvmBinder appBinder;

    JvmChannel() {
        restartApp();
    }

    /** The app's current process's directory (its provider's state). */
    HelperDirectory directory() {
        HelperDirectory d = directory;
        if (d == null) throw new IllegalStateException("the app is not installed");
        return d;
    }

    /** The app's process starts again: a new directory; the old process's Binder dies. */
    HelperDirectory restartApp() {
        JvmBinder old;
        HelperDirectory d;
        synchronized (this) {
            old = appBinder;
            appBinder = new JvmBinder(null);
            d = new HelperDirectory(appBinder, binders());
            directory = d;
        }
        if (old != null) old.die();
        return d;
    }

    /** The app is removed: its provider is gone and its process dies. */
    void uninstallApp() {
        JvmBinder old;
        synchronized (this) {
            old = appBinder;
            directory = null;
            appBinder = null;
        }
        if (old != null) old.die();
    }

    /** How the app turns a received helper Binder into a connection maker, as BinderChannel does on the phone. */
    private static HelperDirectory.Binders binders() {
        return new HelperDirectory.Binders() {
            @Override
            public HelperDirectory.Helper helper(Object binder, final int announcerUid, final HelperDirectory directory) throws IOException {
                final JvmBinder b = (JvmBinder) binder;
                final HelperDirectory.Helper h = new HelperDirectory.Helper() {
                    @Override
                    public HelperLink.Connection open() throws IOException {
                        return new JvmSockets.End(b.target.open(APP_UID, APP_PACKAGE), announcerUid, HELPER_PROCESS);
                    }

                    @Override
                    public Object binder() {
                        return b;
                    }
                };
                b.linkToDeath(new Runnable() {
                    @Override
                    public void run() {
                        directory.gone(h);
                    }
                });
                return h;
            }
        };
    }

    /** ActivityManager and the provider as a process of {@code callingUid} reaches them (the helper: the shell). */
    HelperAnnouncer.App providerAs(final int callingUid) {
        return new HelperAnnouncer.App() {
            @Override
            public HelperChannel.Extras extras() {
                return new HelperChannel.MapExtras();
            }

            @Override
            public HelperChannel.Extras call(String method, HelperChannel.Extras request) throws IOException {
                HelperDirectory d = directory;
                if (d == null) throw new HelperAnnouncer.NoApp("no provider " + HelperChannel.authority(APP_PACKAGE));
                HelperChannel.MapExtras reply = new HelperChannel.MapExtras();
                try {
                    d.call(callingUid, method, request, reply);
                } catch (SecurityException e) {
                    throw new HelperAnnouncer.Refused(e.getMessage());
                } catch (IllegalArgumentException e) {
                    throw new HelperAnnouncer.Refused(e.getMessage());
                }
                return reply;
            }

            @Override
            public void watch(Object binder, Runnable onDeath) throws IOException {
                ((JvmBinder) binder).linkToDeath(onDeath);
            }
        };
    }

    /**
     * What a newly started helper uses to reach the one running (to ask it to hand over): CURRENT
     * from the app's provider, then OPEN on that Binder, as the shell.
     */
    HelperLink runningHelper() {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                HelperChannel.Extras reply = providerAs(PeerPolicy.SHELL_UID).call(HelperChannel.CURRENT, new HelperChannel.MapExtras());
                JvmBinder b = (JvmBinder) reply.getBinder(HelperChannel.KEY_HELPER);
                if (b == null || b.dead()) throw new IOException("no audio helper is running");
                return new JvmSockets.End(b.target.open(PeerPolicy.SHELL_UID, HELPER_PROCESS), PeerPolicy.SHELL_UID, HELPER_PROCESS);
            }
        };
    }

    /** A process of {@code uid} named {@code process} that got hold of the running helper's Binder. */
    HelperLink linkAs(final int uid, final String process) {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                HelperDirectory.Helper h = directory().current();
                if (h == null) throw new IOException("no audio helper has announced itself");
                return new JvmSockets.End(((JvmBinder) h.binder()).target.open(uid, process), PeerPolicy.SHELL_UID, HELPER_PROCESS);
            }
        };
    }
}
