package android.app;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt: android.app.Service):
 *   public abstract class Service extends android.content.ContextWrapper implements android.content.ComponentCallbacks2
 *   ctor public Service();
 *   method @Nullable public abstract android.os.IBinder onBind(android.content.Intent);
 *   method public final void startForeground(int, android.app.Notification);
 *   method public final void startForeground(int, @NonNull android.app.Notification, @RequiresPermission int);  (API 29)
 */
public abstract class Service extends android.content.ContextWrapper implements android.content.ComponentCallbacks2 {
    public Service() {
        super(null);
        throw new RuntimeException("Stub!");
    }

    public abstract android.os.IBinder onBind(android.content.Intent intent);

    public final void startForeground(int id, Notification notification) {
        throw new RuntimeException("Stub!");
    }

    public final void startForeground(int id, Notification notification, int foregroundServiceType) {
        throw new RuntimeException("Stub!");
    }
}
