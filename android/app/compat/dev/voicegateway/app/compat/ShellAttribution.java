package dev.voicegateway.app.compat;

import android.os.Build;
import android.os.Process;

/**
 * Who the audio helper is when it calls the app's provider on Android 12+ (API 31), where
 * IContentProvider.call takes an AttributionSource first: the shell's uid and package, as
 * Shizuku's starter builds it (moe/shizuku/starter/util/IContentProviderCompat.call).
 */
public final class ShellAttribution {
    private ShellAttribution() {
    }

    /** An android.content.AttributionSource (Object: the caller passes it on by reflection). */
    public static Object source() {
        if (Build.VERSION.SDK_INT < 31) throw new UnsupportedOperationException("AttributionSource is API 31");
        return new android.content.AttributionSource.Builder(Process.myUid()).setPackageName(ShellContext.SHELL_PACKAGE).build();
    }
}
