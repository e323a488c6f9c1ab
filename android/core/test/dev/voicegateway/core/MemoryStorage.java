package dev.voicegateway.core;

import java.util.HashMap;
import java.util.Map;

/** Storage in a map, for unit tests; two cores given the same instance share "the disk". */
public final class MemoryStorage implements Storage {
    public final Map<String, String> files = new HashMap<String, String>();
    /** Characters written so far, by every write and append: the cost of keeping things. */
    public long written;
    public int syncs;

    @Override
    public String read(String name) {
        return files.get(name);
    }

    @Override
    public void write(String name, String text) {
        files.put(name, text);
        written += text.length();
        syncs++;
    }

    @Override
    public void append(String name, String text, boolean sync) {
        String old = files.get(name);
        files.put(name, old == null ? text : old + text);
        written += text.length();
        if (sync) syncs++;
    }

    @Override
    public void delete(String name) {
        files.remove(name);
    }
}
