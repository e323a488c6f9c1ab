package android.content.pm;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt: android.content.pm.ServiceInfo):
 *   public class ServiceInfo extends android.content.pm.ComponentInfo implements android.os.Parcelable
 *   field ... public static final int FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE = 16; // 0x10   (API 29)
 *   (from android.os.Parcelable, which the class implements; also in android.jar 23)
 *   method public int describeContents();
 *   method public void writeToParcel(@NonNull android.os.Parcel, int);
 */
public class ServiceInfo extends ComponentInfo implements android.os.Parcelable {
    public static final int FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE = 16;

    ServiceInfo() {
        throw new RuntimeException("Stub!");
    }

    public int describeContents() {
        throw new RuntimeException("Stub!");
    }

    public void writeToParcel(android.os.Parcel dest, int flags) {
        throw new RuntimeException("Stub!");
    }
}
