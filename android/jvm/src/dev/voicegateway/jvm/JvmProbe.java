package dev.voicegateway.jvm;

import dev.voicegateway.core.SelfTest;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The self-test's platform facts on the host: the simulated phone holds the dialer role, has every
 * permission the app asks for that a person grants, runs its "service" (the JVM process) and is
 * not subject to Doze. The audio helper's facts come from the real port (the fake helper's
 * DIAGNOSTICS with --helper fake).
 */
final class JvmProbe implements SelfTest.Probe {
    /** The runtime permissions of android/app/AndroidManifest.xml, which a person grants on a phone. */
    private static final String[] RUNTIME_PERMISSIONS = {
        "android.permission.CALL_PHONE", "android.permission.POST_NOTIFICATIONS", "android.permission.CAMERA",
    };

    @Override
    public Boolean dialerRoleHeld() {
        return Boolean.TRUE;
    }

    @Override
    public Map<String, Boolean> permissions() {
        Map<String, Boolean> m = new LinkedHashMap<String, Boolean>();
        for (String p : RUNTIME_PERMISSIONS) m.put(p, Boolean.TRUE);
        return m;
    }

    @Override
    public Boolean batteryExempt() {
        return Boolean.TRUE;
    }

    @Override
    public Boolean foregroundServiceRunning() {
        return Boolean.TRUE;
    }

    @Override
    public SelfTest.Platform platform() {
        return new SelfTest.Platform(34, Main.INFO.android, "Voice Gateway", "jvm", Main.INFO.model, Main.INFO.appVersion);
    }
}
