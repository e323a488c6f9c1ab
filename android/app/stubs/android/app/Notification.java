package android.app;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt):
 *   public class Notification implements android.os.Parcelable
 *   public static class Notification.Builder
 *     ctor public Notification.Builder(android.content.Context, String);   (API 26)
 *     ctor @Deprecated public Notification.Builder(android.content.Context);
 *   field public static final int VISIBILITY_PUBLIC = 1; // 0x1   (API 21; repeated because this stub hides android.jar's class)
 *   (from android.os.Parcelable, which the class implements; also in android.jar 23)
 *   method public int describeContents();
 *   method public void writeToParcel(@NonNull android.os.Parcel, int);
 * compat/ only creates builders; the app sets them up against android.jar 23.
 */
public class Notification implements android.os.Parcelable {
    public static final int VISIBILITY_PUBLIC = 1;

    Notification() {
        throw new RuntimeException("Stub!");
    }

    public int describeContents() {
        throw new RuntimeException("Stub!");
    }

    public void writeToParcel(android.os.Parcel dest, int flags) {
        throw new RuntimeException("Stub!");
    }

    public static class Builder {
        public Builder(android.content.Context context, String channelId) {
            throw new RuntimeException("Stub!");
        }

        @Deprecated
        public Builder(android.content.Context context) {
            throw new RuntimeException("Stub!");
        }
    }
}
