package dev.voicegateway.core;

import java.util.HashMap;
import java.util.Map;

/** Storage in a map, for unit tests; two cores given the same instance share "the disk". */
public final class MemoryStorage implements Storage {
    public final Map<String, String> files = new HashMap<String, String>();

    @Override
    public String read(String name) {
        return files.get(name);
    }

    @Override
    public void write(String name, String text) {
        files.put(name, text);
    }

    @Override
    public void delete(String name) {
        files.remove(name);
    }
}
