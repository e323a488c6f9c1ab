package dev.voicegateway.core;

import java.io.IOException;

/**
 * The app's private storage: small named text documents, each replaced atomically, so a crash
 * leaves either the old or the new content, never a mix, or appended to. Names are [a-z0-9._-]+;
 * what is stored is readable by the app alone.
 */
public interface Storage {
    /** The document's text, or null when there is none. */
    String read(String name) throws IOException;

    void write(String name, String text) throws IOException;

    /**
     * Adds text at the end of the document (creating it). With {@code sync} the text is on the
     * disk when this returns; without, it may be lost in a crash of the phone (not of the app).
     */
    void append(String name, String text, boolean sync) throws IOException;

    void delete(String name) throws IOException;
}
