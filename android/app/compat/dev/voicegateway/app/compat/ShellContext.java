package dev.voicegateway.app.compat;

import android.content.AttributionSource;
import android.content.ComponentName;
import android.content.Context;
import android.content.ContextWrapper;
import android.content.Intent;
import android.os.Build;
import android.os.Process;

/**
 * The audio helper's Context (it runs as the shell under app_process, where no app Context
 * exists): the system context, presenting itself as the shell's package, so that the audio
 * server attributes the recording to uid 2000 / com.android.shell, which holds
 * CAPTURE_AUDIO_OUTPUT and CALL_AUDIO_INTERCEPTION. Android 12 (API 31) takes the attribution
 * from {@link #getAttributionSource}; older versions from the op package name. Records and tracks
 * made without a Context (AudioManager's interception methods make theirs so) reach both through
 * ActivityThread's initial Application, which the helper attaches to this Context
 * (ShellEnvironment, core ShellSetup.INITIAL_APPLICATION).
 */
public final class ShellContext extends ContextWrapper {
    public static final String SHELL_PACKAGE = "com.android.shell";

    public ShellContext(Context systemContext) {
        super(systemContext);
    }

    @Override
    public String getPackageName() {
        return SHELL_PACKAGE;
    }

    /** Context.getOpPackageName() (public since API 29, hidden before): AppOps' package. */
    public String getOpPackageName() {
        return SHELL_PACKAGE;
    }

    /** Context.getAttributionSource() (API 31): the shell's uid and package, never the system's. */
    public AttributionSource getAttributionSource() {
        if (Build.VERSION.SDK_INT < 31) throw new UnsupportedOperationException("API 31");
        return new AttributionSource.Builder(Process.myUid()).setPackageName(SHELL_PACKAGE).build();
    }

    @Override
    public Context getApplicationContext() {
        return this;
    }

    /**
     * Context.startForegroundService (API 26) is abstract for the compile-only Context stub of
     * compat/; the helper starts no service.
     */
    public ComponentName startForegroundService(Intent service) {
        throw new UnsupportedOperationException("the audio helper starts no service");
    }
}
