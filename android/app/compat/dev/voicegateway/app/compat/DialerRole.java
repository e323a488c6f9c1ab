package dev.voicegateway.app.compat;

import android.app.role.RoleManager;
import android.content.Context;
import android.content.Intent;
import android.os.Build;
import android.telecom.TelecomManager;

/**
 * Whether this app is the phone's default phone app (the dialer role), and the screen that asks
 * the person to make it so. Telecom binds the in-call service only of the default phone app, so
 * without the role the gateway cannot answer or control a call.
 */
public final class DialerRole {
    private DialerRole() {
    }

    public static boolean isHeld(Context context) {
        if (Build.VERSION.SDK_INT >= 29) {
            RoleManager roles = context.getSystemService(RoleManager.class);
            return roles != null && roles.isRoleAvailable(RoleManager.ROLE_DIALER) && roles.isRoleHeld(RoleManager.ROLE_DIALER);
        }
        TelecomManager telecom = context.getSystemService(TelecomManager.class);
        return telecom != null && context.getPackageName().equals(telecom.getDefaultDialerPackage());
    }

    /** The system screen that asks to make this app the default phone app; start it for a result. */
    public static Intent requestIntent(Context context) {
        if (Build.VERSION.SDK_INT >= 29) {
            RoleManager roles = context.getSystemService(RoleManager.class);
            if (roles != null) return roles.createRequestRoleIntent(RoleManager.ROLE_DIALER);
        }
        return new Intent(TelecomManager.ACTION_CHANGE_DEFAULT_DIALER)
                .putExtra(TelecomManager.EXTRA_CHANGE_DEFAULT_DIALER_PACKAGE_NAME, context.getPackageName());
    }
}
