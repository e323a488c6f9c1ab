package dev.voicegateway.core.helper;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * The helper's {@link HelperEndpoint} over the Binder channel: listening is being announced to the
 * app ({@link HelperAnnouncer}); each OPEN transaction the helper's Binder receives is admitted by
 * uid here ({@link #admit}) and its end of the new socketpair handed to {@link #accept}.
 */
public final class AnnouncedEndpoint implements HelperEndpoint {
    private final HelperAnnouncer announcer;
    private final Object helperBinder;
    private final PeerPolicy policy;
    private final ArrayDeque<HelperLink.Connection> opened = new ArrayDeque<HelperLink.Connection>();
    private boolean closed;

    public AnnouncedEndpoint(HelperAnnouncer announcer, Object helperBinder, PeerPolicy policy) {
        this.announcer = announcer;
        this.helperBinder = helperBinder;
        this.policy = policy;
    }

    @Override
    public void listen() {
        announcer.start(helperBinder);
    }

    /**
     * Whether the caller of an OPEN transaction ({@code callingUid}, and its process name when it can
     * be read) may have a connection: the app, or the shell (a newly started helper asking this one
     * to hand over). Null when it may; else the reason, for the reply.
     */
    public String admit(int callingUid, String callingProcess) {
        if (policy.roleOf(callingUid, callingProcess) != PeerPolicy.Role.REFUSED) return null;
        return "uid " + callingUid + (callingProcess == null ? "" : " (" + callingProcess + ")") + " may not use the audio helper";
    }

    /** The helper's end of a connection just opened for an admitted caller. */
    public synchronized void opened(HelperLink.Connection connection) {
        if (closed) {
            connection.close();
            return;
        }
        opened.add(connection);
        notifyAll();
    }

    @Override
    public synchronized HelperLink.Connection accept() throws IOException {
        while (opened.isEmpty() && !closed) {
            try {
                wait();
            } catch (InterruptedException e) {
                throw new IOException("interrupted");
            }
        }
        if (closed) throw new IOException("the helper stopped");
        return opened.remove();
    }

    @Override
    public void close() {
        announcer.stop();
        synchronized (this) {
            closed = true;
            for (HelperLink.Connection c : opened) c.close();
            opened.clear();
            notifyAll();
        }
    }
}
