package android.content;

import android.os.Parcel;
import android.os.Parcelable;

/**
 * Compile-only stub (never packaged), API 31. From 34/public/api/android.txt (commit 5fb664b4),
 * the "public final class AttributionSource implements android.os.Parcelable" block, only the
 * members compat/ uses (and Parcelable's two):
 *   method public int describeContents();
 *   method public void writeToParcel(@NonNull android.os.Parcel, int);
 *   ctor public AttributionSource.Builder(int);
 *   method @NonNull public android.content.AttributionSource.Builder setPackageName(@Nullable String);
 *   method @NonNull public android.content.AttributionSource build();
 * The class publishes no constructor.
 */
public final class AttributionSource implements Parcelable {
    AttributionSource() {
        throw new RuntimeException("Stub!");
    }

    public int describeContents() {
        throw new RuntimeException("Stub!");
    }

    public void writeToParcel(Parcel dest, int flags) {
        throw new RuntimeException("Stub!");
    }

    public static final class Builder {
        public Builder(int uid) {
            throw new RuntimeException("Stub!");
        }

        public Builder setPackageName(String packageName) {
            throw new RuntimeException("Stub!");
        }

        public AttributionSource build() {
            throw new RuntimeException("Stub!");
        }
    }
}
