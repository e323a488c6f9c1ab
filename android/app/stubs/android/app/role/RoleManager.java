package android.app.role;

/**
 * Compile-only stub (never packaged). API 29. From the excerpts (34/public/api/android.txt:
 * android.app.role.RoleManager), the members compat/ uses:
 *   public final class RoleManager
 *   method @NonNull public android.content.Intent createRequestRoleIntent(@NonNull String);
 *   method public boolean isRoleAvailable(@NonNull String);
 *   method public boolean isRoleHeld(@NonNull String);
 *   field public static final String ROLE_DIALER = "android.app.role.DIALER";
 */
public final class RoleManager {
    public static final String ROLE_DIALER = "android.app.role.DIALER";

    RoleManager() {
        throw new RuntimeException("Stub!");
    }

    public android.content.Intent createRequestRoleIntent(String roleName) {
        throw new RuntimeException("Stub!");
    }

    public boolean isRoleAvailable(String roleName) {
        throw new RuntimeException("Stub!");
    }

    public boolean isRoleHeld(String roleName) {
        throw new RuntimeException("Stub!");
    }
}
