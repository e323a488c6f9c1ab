package android.content;

/**
 * Compile-only stub (never packaged). From 34/public/api/android.txt (commit 5fb664b4, the
 * "public abstract class Context" block), read directly because the excerpts do not carry Context:
 *   ctor public Context();
 *   method @Nullable public abstract android.content.ComponentName startForegroundService(android.content.Intent);  (API 26)
 *   method @Nullable public abstract android.content.ComponentName startService(android.content.Intent);
 *   method public abstract Object getSystemService(@NonNull String);
 *   method public final <T> T getSystemService(@NonNull Class<T>);
 *   method public abstract String getPackageName();
 * Only these members exist for compat/'s compiler; the API-23 ones are repeated because this stub
 * hides android.jar's Context from compat/.
 */
public abstract class Context {
    public Context() {
        throw new RuntimeException("Stub!");
    }

    public abstract ComponentName startForegroundService(Intent service);

    public abstract ComponentName startService(Intent service);

    public abstract Object getSystemService(String name);

    public final <T> T getSystemService(Class<T> serviceClass) {
        throw new RuntimeException("Stub!");
    }

    public abstract String getPackageName();
}
