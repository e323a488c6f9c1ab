package dev.voicegateway.core.helper;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A byte stream between the app and the audio helper: one end of a socketpair that the helper made
 * for an OPEN transaction on its Binder ({@link HelperChannel}); on the host's JVM a pair of
 * connected loopback sockets. {@link #open} is the connecting side (the app, or a newly started
 * helper asking the running one to hand over).
 */
public interface HelperLink {
    /** Connects to the helper; throws when none is listening. */
    Connection open() throws IOException;

    /** One connection, from either end. */
    interface Connection extends Closeable {
        InputStream input() throws IOException;

        OutputStream output() throws IOException;

        /** The uid of the process at the other end (Binder's calling uid when the pair was made), or -1 when unknown. */
        int peerUid() throws IOException;

        /**
         * The name of the process at the other end (an app's is its package, or package:suffix), or
         * null when the transport cannot tell. Android gives a freed uid to the next app installed:
         * the name tells the app from its successor.
         */
        String peerProcess() throws IOException;

        /** A read that waits longer than this throws (0: wait for ever). */
        void setReadTimeout(int ms) throws IOException;

        /** Closes both directions; a thread blocked reading it returns. Never throws. */
        @Override
        void close();
    }
}
