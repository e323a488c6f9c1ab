package dev.voicegateway.app.compat;

import android.os.Build;
import android.telephony.SignalStrength;
import android.telephony.TelephonyManager;

/** The cellular signal in bars. */
public final class Signal {
    private Signal() {
    }

    /** 0–4 from TelephonyManager.getSignalStrength (28+); null below 28 or when the phone cannot tell. */
    public static Integer level(TelephonyManager telephony) {
        if (Build.VERSION.SDK_INT < 28) return null;
        SignalStrength strength = telephony.getSignalStrength();
        return strength == null ? null : Integer.valueOf(strength.getLevel());
    }
}
