package android.app;

/**
 * Compile-only stub (never packaged). API 26. From the excerpts (34/public/api/android.txt:
 * android.app.NotificationChannel), the members compat/ uses:
 *   public final class NotificationChannel implements android.os.Parcelable
 *   ctor public NotificationChannel(String, CharSequence, int);
 *   method public int describeContents();
 *   method public void enableVibration(boolean);
 *   method public void setDescription(String);
 *   method public void setLockscreenVisibility(int);
 *   method public void setShowBadge(boolean);
 *   method public void setSound(android.net.Uri, android.media.AudioAttributes);
 *   method public void writeToParcel(android.os.Parcel, int);
 */
public final class NotificationChannel implements android.os.Parcelable {
    public NotificationChannel(String id, CharSequence name, int importance) {
        throw new RuntimeException("Stub!");
    }

    public int describeContents() {
        throw new RuntimeException("Stub!");
    }

    public void enableVibration(boolean vibration) {
        throw new RuntimeException("Stub!");
    }

    public void setDescription(String description) {
        throw new RuntimeException("Stub!");
    }

    public void setLockscreenVisibility(int lockscreenVisibility) {
        throw new RuntimeException("Stub!");
    }

    public void setShowBadge(boolean showBadge) {
        throw new RuntimeException("Stub!");
    }

    public void setSound(android.net.Uri sound, android.media.AudioAttributes audioAttributes) {
        throw new RuntimeException("Stub!");
    }

    public void writeToParcel(android.os.Parcel dest, int flags) {
        throw new RuntimeException("Stub!");
    }
}
