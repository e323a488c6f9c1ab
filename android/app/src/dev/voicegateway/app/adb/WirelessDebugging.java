package dev.voicegateway.app.adb;

import android.content.Context;
import android.content.pm.PackageManager;
import android.database.ContentObserver;
import android.net.ConnectivityManager;
import android.net.NetworkInfo;
import android.net.Uri;
import android.os.Handler;
import android.provider.Settings;

/**
 * The global setting behind the Wireless debugging switch, "adb_wifi_enabled" (Settings.Global.ADB_WIFI_ENABLED,
 * a hidden constant, so written as its value; AOSP frameworks/base core/java/android/provider/Settings.java).
 * AdbService follows it (its settings observer turns adbd's TLS server on and off; with USB debugging off
 * too, writing 0 stops adbd altogether: AdbService.stopAdbd), sets it at boot (older versions to 0,
 * Android 15 from persist.adb.tls_server.enable: AdbService.systemReady), and AdbDebuggingManager writes it back to 0 when the
 * phone is not on Wi-Fi or the network was never allowed (MSG_ADBDWIFI_ENABLE). Writing it needs
 * WRITE_SECURE_SETTINGS, a development permission that only `adb shell pm grant` gives an app.
 */
final class WirelessDebugging {
    static final String SETTING = "adb_wifi_enabled";
    static final String PERMISSION = "android.permission.WRITE_SECURE_SETTINGS";

    private final Context context;

    WirelessDebugging(Context context) {
        this.context = context;
    }

    boolean on() {
        return Settings.Global.getInt(context.getContentResolver(), SETTING, 0) == 1;
    }

    /** USB debugging (Settings.Global.ADB_ENABLED, public since API 17): while on, adbd outlives the Wireless switch. */
    boolean usbDebuggingOn() {
        return Settings.Global.getInt(context.getContentResolver(), Settings.Global.ADB_ENABLED, 0) == 1;
    }

    boolean granted() {
        return context.checkSelfPermission(PERMISSION) == PackageManager.PERMISSION_GRANTED;
    }

    /** False when the write was refused (no grant, or a device policy forbids debugging features). */
    boolean set(boolean on) {
        try {
            return Settings.Global.putInt(context.getContentResolver(), SETTING, on ? 1 : 0);
        } catch (SecurityException e) {
            return false;
        }
    }

    /** Wi-Fi connected: Wireless debugging runs only there (AdbDebuggingManager.getCurrentWifiApInfo). */
    boolean onWifi() {
        ConnectivityManager cm = (ConnectivityManager) context.getSystemService(Context.CONNECTIVITY_SERVICE);
        if (cm == null) return false;
        NetworkInfo wifi = cm.getNetworkInfo(ConnectivityManager.TYPE_WIFI);
        return wifi != null && wifi.isConnected();
    }

    /** Hears the switch change (the user turned it on after our notification); main-thread callback. */
    ContentObserver watch(Handler handler, final Runnable changed) {
        ContentObserver observer = new ContentObserver(handler) {
            @Override
            public void onChange(boolean selfChange) {
                changed.run();
            }
        };
        Uri uri = Settings.Global.getUriFor(SETTING);
        context.getContentResolver().registerContentObserver(uri, false, observer);
        return observer;
    }
}
