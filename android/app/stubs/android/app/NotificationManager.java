package android.app;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt: android.app.NotificationManager):
 *   public class NotificationManager
 *   method public void createNotificationChannel(@NonNull android.app.NotificationChannel);   (API 26)
 *   field public static final int IMPORTANCE_HIGH = 4; // 0x4                                  (API 24)
 *   field public static final int IMPORTANCE_LOW = 2; // 0x2                                   (API 24)
 *   method public boolean areNotificationsEnabled();                                           (API 24)
 */
public class NotificationManager {
    public static final int IMPORTANCE_HIGH = 4;
    public static final int IMPORTANCE_LOW = 2;

    NotificationManager() {
        throw new RuntimeException("Stub!");
    }

    public void createNotificationChannel(NotificationChannel channel) {
        throw new RuntimeException("Stub!");
    }

    public boolean areNotificationsEnabled() {
        throw new RuntimeException("Stub!");
    }
}
