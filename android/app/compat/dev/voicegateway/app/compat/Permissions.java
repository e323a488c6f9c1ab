package dev.voicegateway.app.compat;

import android.os.Build;

/** Runtime permissions that exist only on newer Android. */
public final class Permissions {
    private Permissions() {
    }

    /** Manifest.permission.POST_NOTIFICATIONS (API 33), as the excerpts give it. */
    public static final String POST_NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS";

    /** Android 13+ asks the person before an app may post notifications. */
    public static boolean notificationsNeedPermission() {
        return Build.VERSION.SDK_INT >= 33;
    }
}
