package dev.voicegateway.core.helper;

import java.io.IOException;

/**
 * The app's side of the rendezvous: the helper that last announced itself, what the app's
 * ContentProvider answers, and the {@link HelperLink} that opens connections to that helper. Only
 * the shell may announce or ask (the provider checks the caller's uid first, and this again). The
 * platform parts (the Binder, its death, the OPEN transaction) come in through {@link Binders}.
 */
public final class HelperDirectory {
    /** The platform's side: turns a received Binder into a {@link Helper}. */
    public interface Binders {
        /**
         * The helper behind {@code binder}, announced by {@code announcerUid}; calls
         * {@link HelperDirectory#gone} with it when its process dies (linkToDeath). Throws when the
         * Binder is already dead.
         */
        Helper helper(Object binder, int announcerUid, HelperDirectory directory) throws IOException;
    }

    /** A helper's Binder as the app holds it. */
    public interface Helper {
        /** The OPEN transaction: a new connection, whose peerUid() is the announcer's. */
        HelperLink.Connection open() throws IOException;

        /** The Binder itself, to hand to a newly started helper (CURRENT). */
        Object binder();
    }

    private final Object appBinder;
    private final Binders binders;
    private volatile Runnable onAnnounced;
    private Helper current;

    /** @param appBinder the app process's own Binder, handed to every helper that announces itself */
    public HelperDirectory(Object appBinder, Binders binders) {
        this.appBinder = appBinder;
        this.binders = binders;
    }

    /** Runs (on the provider's Binder thread) after each announcement: the port connects at once. */
    public void setOnAnnounced(Runnable r) {
        onAnnounced = r;
    }

    /**
     * The provider's call(), after the provider's own uid check. Throws SecurityException for a
     * caller that is not the shell, IllegalArgumentException for what it cannot take (the provider
     * lets both go back to the caller, as ContentProvider.call does).
     */
    public void call(int callingUid, String method, HelperChannel.Extras in, HelperChannel.Extras out) {
        PeerPolicy.requireShell(callingUid);
        if (HelperChannel.ANNOUNCE.equals(method)) {
            announce(callingUid, in, out);
        } else if (HelperChannel.CURRENT.equals(method)) {
            Helper h = current();
            if (h != null) out.putBinder(HelperChannel.KEY_HELPER, h.binder());
            out.putInt(HelperChannel.KEY_VERSION, HelperChannel.VERSION);
        } else {
            throw new IllegalArgumentException("unknown method " + method);
        }
    }

    private void announce(int callingUid, HelperChannel.Extras in, HelperChannel.Extras out) {
        int version = in == null ? 0 : in.getInt(HelperChannel.KEY_VERSION, 0);
        if (version != HelperChannel.VERSION) {
            throw new IllegalArgumentException("this app speaks version " + HelperChannel.VERSION + " of the helper channel, not " + version
                    + ": start the helper of the installed app again");
        }
        Object binder = in.getBinder(HelperChannel.KEY_HELPER);
        if (binder == null) throw new IllegalArgumentException("no " + HelperChannel.KEY_HELPER + " Binder");
        Helper h;
        try {
            h = binders.helper(binder, callingUid, this);
        } catch (IOException e) {
            throw new IllegalArgumentException("the helper's Binder is already dead");
        }
        synchronized (this) {
            current = h;
        }
        out.putBinder(HelperChannel.KEY_APP, appBinder);
        out.putInt(HelperChannel.KEY_VERSION, HelperChannel.VERSION);
        Runnable r = onAnnounced;
        if (r != null) r.run();
    }

    /** The helper's process died (or it refused us): forget it, unless another took its place. */
    public synchronized void gone(Helper h) {
        if (current == h) current = null;
    }

    /** The helper that last announced itself and has not died, or null. */
    public synchronized Helper current() {
        return current;
    }

    /** The app's link to the helper: throws while none has announced itself (the normal state until it is started). */
    public HelperLink link() {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                Helper h = current();
                if (h == null) throw new IOException("no audio helper has announced itself");
                return h.open();
            }
        };
    }
}
