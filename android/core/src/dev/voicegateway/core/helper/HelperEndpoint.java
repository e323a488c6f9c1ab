package dev.voicegateway.core.helper;

import java.io.IOException;

/** The helper's listening side: being announced to the app, and handed the connections it opens ({@link AnnouncedEndpoint}). */
public interface HelperEndpoint {
    /** Starts taking connections (announces the helper); throws when it cannot. */
    void listen() throws IOException;

    /** The next connection; throws once {@link #close} was called. */
    HelperLink.Connection accept() throws IOException;

    /** Stops taking connections; a thread blocked in {@link #accept} returns. Never throws. */
    void close();
}
