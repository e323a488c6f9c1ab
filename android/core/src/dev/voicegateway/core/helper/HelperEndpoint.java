package dev.voicegateway.core.helper;

import java.io.IOException;

/** The helper's listening side: the abstract socket name on the phone, a TCP port on the host. */
public interface HelperEndpoint {
    /** Takes the name (or port); throws while another helper still holds it. */
    void listen() throws IOException;

    /** The next connection; throws once {@link #close} was called. */
    HelperLink.Connection accept() throws IOException;

    /** Gives up the name; a thread blocked in {@link #accept} returns. Never throws. */
    void close();
}
