package dev.voicegateway.core.adb;

import java.util.ArrayList;
import java.util.List;

/**
 * NsdManager resolves one service at a time per app: while a resolve is pending, another fails at
 * once with FAILURE_ALREADY_ACTIVE (AOSP NsdService, RESOLVE_SERVICE: "if (clientInfo.mResolvedService
 * != null) ... FAILURE_ALREADY_ACTIVE", frameworks/base services/core/java/com/android/server/NsdService.java,
 * later packages/modules/Connectivity, where the legacy backend keeps the rule). Shizuku's AdbMdns
 * resolves each found service at once and loses the ones that collide; on a Wi-Fi with several
 * phones announcing ADB that can be ours. So the adapter asks this queue which name to resolve next.
 * Pure; not thread-safe (the adapter calls it under one lock).
 */
public final class ResolveQueue {
    private final List<String> waiting = new ArrayList<String>();
    private String inFlight;

    /** A service was found: the name to resolve now, or null when one is already resolving (it waits) or it is known. */
    public String found(String name) {
        if (name == null || name.equals(inFlight) || waiting.contains(name)) return null;
        waiting.add(name);
        return next();
    }

    /** A service went away: it is not resolved any more (a resolve already running is let finish). */
    public void lost(String name) {
        waiting.remove(name);
    }

    /** The resolve of {@code name} ended (resolved, or failed for good): the next name to resolve, or null. */
    public String done(String name) {
        if (name != null && name.equals(inFlight)) inFlight = null;
        return next();
    }

    /**
     * The platform said another resolve is still active (FAILURE_ALREADY_ACTIVE): {@code name} goes back
     * to the head of the line, and {@link #retry} after a short delay starts it again.
     */
    public void busy(String name) {
        if (name != null && name.equals(inFlight)) {
            inFlight = null;
            waiting.add(0, name);
        }
    }

    /** After {@link #busy}: the name to resolve now, or null. */
    public String retry() {
        return next();
    }

    /** The name being resolved, or null. */
    public String resolving() {
        return inFlight;
    }

    public int waiting() {
        return waiting.size();
    }

    private String next() {
        if (inFlight != null || waiting.isEmpty()) return null;
        inFlight = waiting.remove(0);
        return inFlight;
    }
}
