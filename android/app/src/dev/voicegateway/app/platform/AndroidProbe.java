package dev.voicegateway.app.platform;

import android.app.ActivityManager;
import android.content.Context;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.PowerManager;
import dev.voicegateway.app.compat.DialerRole;
import dev.voicegateway.app.service.GatewayService;
import dev.voicegateway.core.SelfTest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The self-test's platform facts (docs/android.md, "The self-test"). Every read is guarded: a phone
 * whose platform throws still sends its report, with that fact unknown (null). Sources, AOSP
 * platform_frameworks_base:
 * <ul>
 * <li>the dialer role: {@link DialerRole#isHeld} (RoleManager.isRoleHeld on Android 10+,
 *     TelecomManager.getDefaultDialerPackage before);</li>
 * <li>permissions: PackageInfo.requestedPermissions is the manifest's uses-permission list
 *     (core/java/android/content/pm/PackageInfo.java), and Context.checkSelfPermission (API 23)
 *     answers for the app's own uid, runtime and install-time alike; a permission this Android does
 *     not define (POST_NOTIFICATIONS before 13) makes PackageManager.getPermissionInfo throw
 *     NameNotFoundException: reported as null, not as refused;</li>
 * <li>battery: PowerManager.isIgnoringBatteryOptimizations (API 23, core/java/android/os/PowerManager.java);</li>
 * <li>the foreground service: ActivityManager.getRunningServices, which since Android 8 "will still
 *     return the caller's own services" (core/java/android/app/ActivityManager.java), and
 *     RunningServiceInfo.foreground: what the system, not the app, believes.</li>
 * </ul>
 */
public final class AndroidProbe implements SelfTest.Probe {
    private final Context context;

    public AndroidProbe(Context context) {
        this.context = context.getApplicationContext();
    }

    @Override
    public Boolean dialerRoleHeld() {
        try {
            return DialerRole.isHeld(context);
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public Map<String, Boolean> permissions() {
        Map<String, Boolean> out = new LinkedHashMap<String, Boolean>();
        PackageManager pm = context.getPackageManager();
        String[] requested;
        try {
            PackageInfo info = pm.getPackageInfo(context.getPackageName(), PackageManager.GET_PERMISSIONS);
            requested = info.requestedPermissions;
        } catch (PackageManager.NameNotFoundException | RuntimeException e) {
            return out;
        }
        if (requested == null) return out;
        for (String name : requested) {
            Boolean granted;
            try {
                pm.getPermissionInfo(name, 0);
                granted = context.checkSelfPermission(name) == PackageManager.PERMISSION_GRANTED;
            } catch (PackageManager.NameNotFoundException e) {
                granted = null;
            } catch (RuntimeException e) {
                granted = null;
            }
            out.put(name, granted);
        }
        return out;
    }

    @Override
    public Boolean batteryExempt() {
        try {
            PowerManager power = context.getSystemService(PowerManager.class);
            return power == null ? null : power.isIgnoringBatteryOptimizations(context.getPackageName());
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    @SuppressWarnings("deprecation")
    public Boolean foregroundServiceRunning() {
        try {
            ActivityManager am = context.getSystemService(ActivityManager.class);
            if (am == null) return null;
            List<ActivityManager.RunningServiceInfo> services = am.getRunningServices(100);
            if (services == null) return null;
            String name = GatewayService.class.getName();
            for (ActivityManager.RunningServiceInfo s : services) {
                if (s.service != null && name.equals(s.service.getClassName()) && context.getPackageName().equals(s.service.getPackageName())) return s.foreground;
            }
            return Boolean.FALSE;
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public SelfTest.Platform platform() {
        return new SelfTest.Platform(Build.VERSION.SDK_INT, Build.VERSION.RELEASE, Build.MANUFACTURER, Build.BRAND, Build.MODEL,
                AndroidDeviceInfo.read(context).appVersion);
    }
}
