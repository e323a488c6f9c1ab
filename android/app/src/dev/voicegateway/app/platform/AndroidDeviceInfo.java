package dev.voicegateway.app.platform;

import android.content.Context;
import android.content.pm.PackageManager;
import android.os.Build;
import dev.voicegateway.core.DeviceInfo;
import java.util.Locale;

/** The core's {@link DeviceInfo} from the package manager and android.os.Build (no generated BuildConfig). */
public final class AndroidDeviceInfo {
    private AndroidDeviceInfo() {
    }

    public static DeviceInfo read(Context context) {
        return new DeviceInfo(versionName(context), Build.VERSION.RELEASE, model());
    }

    /** "Google Pixel 7", "samsung SM-A536B": the maker once, then the model. */
    public static String model() {
        String maker = Build.MANUFACTURER == null ? "" : Build.MANUFACTURER.trim();
        String model = Build.MODEL == null ? "" : Build.MODEL.trim();
        if (maker.isEmpty() || model.toLowerCase(Locale.ROOT).startsWith(maker.toLowerCase(Locale.ROOT))) return model;
        return maker + " " + model;
    }

    private static String versionName(Context context) {
        try {
            String name = context.getPackageManager().getPackageInfo(context.getPackageName(), 0).versionName;
            return name == null || name.isEmpty() ? "unknown" : name;
        } catch (PackageManager.NameNotFoundException e) {
            return "unknown";
        }
    }
}
