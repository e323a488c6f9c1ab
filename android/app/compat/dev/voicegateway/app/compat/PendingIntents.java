package dev.voicegateway.app.compat;

import android.os.Build;

/** PendingIntent mutability for a notification's inline reply. */
public final class PendingIntents {
    /**
     * PendingIntent.FLAG_MUTABLE (API 31; "field public static final int FLAG_MUTABLE = 33554432; //
     * 0x2000000" in API 34's android.txt). From Android 12 every PendingIntent must state its
     * mutability, and one carrying a RemoteInput reply must be mutable: the system fills the typed
     * text into its Intent (AOSP frameworks/base PendingIntent.checkFlags; Shizuku's AdbPairingService
     * builds its reply intent the same way). Below 31 a PendingIntent is mutable without a flag.
     * The value is written out because android.jar 23 has no such field; a constant reads no field at run time.
     */
    public static int mutable() {
        if (Build.VERSION.SDK_INT >= 31) return 0x02000000;
        return 0;
    }

    private PendingIntents() {
    }
}
