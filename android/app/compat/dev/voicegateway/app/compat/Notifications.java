package dev.voicegateway.app.compat;

import android.app.Notification;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.content.Context;
import android.os.Build;

/** Notification channels (26+) and a builder that posts to one. */
public final class Notifications {
    private Notifications() {
    }

    /** Creates (or updates the name of) a channel; nothing below 26. */
    public static void channel(Context context, String id, CharSequence name, String description, boolean urgent) {
        if (Build.VERSION.SDK_INT < 26) return;
        NotificationChannel channel = new NotificationChannel(id, name,
                urgent ? NotificationManager.IMPORTANCE_HIGH : NotificationManager.IMPORTANCE_LOW);
        channel.setDescription(description);
        channel.setShowBadge(false);
        if (urgent) {
            // Telecom rings and vibrates for an incoming call; the notification must not add a second sound.
            channel.setSound(null, null);
            channel.enableVibration(false);
            channel.setLockscreenVisibility(Notification.VISIBILITY_PUBLIC);
        }
        NotificationManager manager = context.getSystemService(NotificationManager.class);
        if (manager != null) manager.createNotificationChannel(channel);
    }

    /** Whether the person lets the app show notifications (24+ can tell; below, they are on). */
    public static boolean enabled(Context context) {
        if (Build.VERSION.SDK_INT < 24) return true;
        NotificationManager manager = context.getSystemService(NotificationManager.class);
        return manager == null || manager.areNotificationsEnabled();
    }

    public static Notification.Builder builder(Context context, String channelId) {
        if (Build.VERSION.SDK_INT >= 26) return new Notification.Builder(context, channelId);
        return new Notification.Builder(context);
    }
}
