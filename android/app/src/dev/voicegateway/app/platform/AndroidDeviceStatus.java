package dev.voicegateway.app.platform;

import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.net.ConnectivityManager;
import android.net.Network;
import android.net.NetworkCapabilities;
import android.os.BatteryManager;
import android.os.Build;
import android.telephony.PhoneStateListener;
import android.telephony.SignalStrength;
import android.telephony.TelephonyManager;
import dev.voicegateway.app.compat.Signal;
import dev.voicegateway.core.DeviceStatus;

/**
 * The core's {@link DeviceStatus}: battery and charging from BatteryManager, the default network's
 * transport, signal bars and the network operator's name. Each read asks the platform afresh (health
 * goes out once a minute); anything the platform refuses or does not know is reported as unknown
 * (null), never as an exception into the core.
 */
public final class AndroidDeviceStatus implements DeviceStatus {
    private final Context context;
    /** Below Android 9 there is no getSignalStrength(): the last level a listener heard. */
    private volatile Integer legacySignal;

    /** Create on the main thread: below Android 9 it registers a listener that needs the main looper. */
    public AndroidDeviceStatus(Context context) {
        this.context = context.getApplicationContext();
        if (Build.VERSION.SDK_INT < 28) listenForSignal();
    }

    @Override
    public Integer battery() {
        try {
            BatteryManager battery = context.getSystemService(BatteryManager.class);
            int capacity = battery == null ? -1 : battery.getIntProperty(BatteryManager.BATTERY_PROPERTY_CAPACITY);
            if (capacity >= 0 && capacity <= 100) return capacity;
            // Some phones do not implement the property: the sticky battery broadcast has the level.
            Intent sticky = context.registerReceiver(null, new IntentFilter(Intent.ACTION_BATTERY_CHANGED));
            if (sticky == null) return null;
            int level = sticky.getIntExtra(BatteryManager.EXTRA_LEVEL, -1);
            int scale = sticky.getIntExtra(BatteryManager.EXTRA_SCALE, -1);
            return level < 0 || scale <= 0 ? null : Integer.valueOf(Math.round(level * 100f / scale));
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public Boolean charging() {
        try {
            BatteryManager battery = context.getSystemService(BatteryManager.class);
            return battery == null ? null : Boolean.valueOf(battery.isCharging());
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String network() {
        try {
            ConnectivityManager connectivity = context.getSystemService(ConnectivityManager.class);
            return connectivity == null ? null : networkType(connectivity, connectivity.getActiveNetwork());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** health.network of one network: wifi, cellular, ethernet, other, or none when there is no network. */
    public static String networkType(ConnectivityManager connectivity, Network network) {
        if (network == null) return "none";
        NetworkCapabilities caps = connectivity.getNetworkCapabilities(network);
        return caps == null ? "other" : transport(caps);
    }

    /** health.network of a network's capabilities: wifi, cellular, ethernet or other. */
    public static String transport(NetworkCapabilities caps) {
        if (caps.hasTransport(NetworkCapabilities.TRANSPORT_WIFI)) return "wifi";
        if (caps.hasTransport(NetworkCapabilities.TRANSPORT_CELLULAR)) return "cellular";
        if (caps.hasTransport(NetworkCapabilities.TRANSPORT_ETHERNET)) return "ethernet";
        return "other";
    }

    @Override
    public Integer signal() {
        if (Build.VERSION.SDK_INT < 28) return legacySignal;
        try {
            TelephonyManager telephony = context.getSystemService(TelephonyManager.class);
            return telephony == null ? null : Signal.level(telephony);
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String carrier() {
        try {
            TelephonyManager telephony = context.getSystemService(TelephonyManager.class);
            String name = telephony == null ? null : telephony.getNetworkOperatorName();
            return name == null || name.trim().isEmpty() ? null : name.trim();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private void listenForSignal() {
        try {
            TelephonyManager telephony = context.getSystemService(TelephonyManager.class);
            if (telephony == null) return;
            telephony.listen(new PhoneStateListener() {
                @Override
                public void onSignalStrengthsChanged(SignalStrength strength) {
                    legacySignal = strength == null ? null : Integer.valueOf(strength.getLevel());
                }
            }, PhoneStateListener.LISTEN_SIGNAL_STRENGTHS);
        } catch (RuntimeException e) {
            legacySignal = null;
        }
    }
}
