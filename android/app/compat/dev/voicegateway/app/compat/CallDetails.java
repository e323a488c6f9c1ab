package dev.voicegateway.app.compat;

import android.os.Build;
import android.telecom.Call;

/** Call.Details members added after API 23. */
public final class CallDetails {
    private CallDetails() {
    }

    /** When Telecom created the call (26+), the same after our process restarts; 0 when unknown. */
    public static long creationTimeMillis(Call.Details details) {
        if (Build.VERSION.SDK_INT >= 26) return details.getCreationTimeMillis();
        return 0;
    }

    /** TRUE incoming, FALSE outgoing (29+); null when the platform does not say. */
    public static Boolean incoming(Call.Details details) {
        if (Build.VERSION.SDK_INT >= 29) {
            int direction = details.getCallDirection();
            if (direction == Call.Details.DIRECTION_INCOMING) return Boolean.TRUE;
            if (direction == Call.Details.DIRECTION_OUTGOING) return Boolean.FALSE;
        }
        return null;
    }
}
