package dev.voicegateway.core;

import java.io.IOException;

/**
 * The app's private storage: small named text documents, each replaced atomically, so a crash
 * leaves either the old or the new content, never a mix. Names are [a-z0-9._-]+.
 */
public interface Storage {
    /** The document's text, or null when there is none. */
    String read(String name) throws IOException;

    void write(String name, String text) throws IOException;

    void delete(String name) throws IOException;
}
