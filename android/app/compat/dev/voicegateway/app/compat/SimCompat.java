package dev.voicegateway.app.compat;

import android.os.Build;
import android.os.Bundle;
import android.os.Parcelable;
import android.telecom.PhoneAccountHandle;
import android.telephony.TelephonyManager;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/** SIM and phone-account members added after API 23, reached by reflection so no stub is needed. */
public final class SimCompat {
    /** Call.EXTRA_SUGGESTED_PHONE_ACCOUNTS (API 29): an ArrayList of PhoneAccountSuggestion in the call's intent extras. */
    public static final String EXTRA_SUGGESTED_PHONE_ACCOUNTS = "android.telecom.extra.SUGGESTED_PHONE_ACCOUNTS";

    private SimCompat() {
    }

    /**
     * The subscription of a phone account (TelephonyManager.getSubscriptionId(PhoneAccountHandle),
     * API 30), or -1 below 30 or when the platform cannot tell: the caller then matches the handle's id.
     */
    public static int subscriptionIdOf(TelephonyManager telephony, PhoneAccountHandle handle) {
        if (Build.VERSION.SDK_INT < 30 || telephony == null) return -1;
        try {
            Method m = TelephonyManager.class.getMethod("getSubscriptionId", PhoneAccountHandle.class);
            Object id = m.invoke(telephony, handle);
            return id instanceof Integer ? ((Integer) id).intValue() : -1;
        } catch (ReflectiveOperationException e) {
            return -1;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * The accounts Telecom suggests for a call waiting in SELECT_PHONE_ACCOUNT, from the call's intent
     * extras (API 29: PhoneAccountSuggestion.getPhoneAccountHandle); empty below 29.
     */
    public static List<PhoneAccountHandle> suggestedAccounts(Bundle intentExtras) {
        List<PhoneAccountHandle> out = new ArrayList<PhoneAccountHandle>();
        if (Build.VERSION.SDK_INT < 29 || intentExtras == null) return out;
        List<Parcelable> list;
        try {
            list = intentExtras.getParcelableArrayList(EXTRA_SUGGESTED_PHONE_ACCOUNTS);
        } catch (RuntimeException e) {
            return out;
        }
        if (list == null) return out;
        for (Parcelable p : list) {
            try {
                Object handle = p.getClass().getMethod("getPhoneAccountHandle").invoke(p);
                if (handle instanceof PhoneAccountHandle) out.add((PhoneAccountHandle) handle);
            } catch (ReflectiveOperationException e) {
                // Not a PhoneAccountSuggestion: nothing to suggest.
            } catch (RuntimeException e) {
                // Same.
            }
        }
        return out;
    }
}
