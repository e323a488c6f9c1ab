package android.telephony;

/**
 * Compile-only stub (never packaged). From the excerpts (34/public/api/android.txt: android.telephony.TelephonyManager,
 * first in 28/public/api/android.txt per the excerpts' appearance notes):
 *   public class TelephonyManager
 *   method @Nullable public android.telephony.SignalStrength getSignalStrength();   (API 28)
 */
public class TelephonyManager {
    TelephonyManager() {
        throw new RuntimeException("Stub!");
    }

    public SignalStrength getSignalStrength() {
        throw new RuntimeException("Stub!");
    }
}
