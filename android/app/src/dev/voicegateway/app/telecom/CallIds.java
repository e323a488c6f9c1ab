package dev.voicegateway.app.telecom;

import android.net.Uri;
import android.telecom.Call;
import dev.voicegateway.app.compat.CallDetails;
import java.util.Locale;
import java.util.UUID;

/**
 * The nativeCallId of a Telecom call. It must stay the same across a restart of the app (the core
 * keeps its calls in storage and reconciles them with the platform's calls on start), but
 * Telecom's own call id is not public API and the {@link Call} object is a new one each time
 * Telecom binds the in-call service again. What Telecom does keep for the life of a call is when it
 * created it (Call.Details.getCreationTimeMillis, API 26, our minSdk) and the remote handle. The id
 * is "tc-" + creation time + "-" + 8 hex of the handle's String.hashCode (fixed by the Java spec, so
 * the same in every process): two calls would have to start in the same millisecond with the same
 * handle to collide, which Telecom, creating calls one at a time, does not do.
 *
 * <p>TelecomTelephony computes it once per Call and keeps it while the process lives, so a handle
 * that changes mid-call (a redirected outgoing call) does not change the id; only if the app is also
 * restarted during such a call does the core see the stored call end and an unreported one appear.
 * Where the creation time is unknown (0), the id is random and lasts only for this process.
 */
final class CallIds {
    private CallIds() {
    }

    static String of(Call call) {
        Call.Details details = call.getDetails();
        long created = details == null ? 0 : CallDetails.creationTimeMillis(details);
        if (created <= 0) return "tc-local-" + UUID.randomUUID();
        Uri handle = details.getHandle();
        String key = handle == null ? "" : handle.toString();
        return "tc-" + created + "-" + String.format(Locale.ROOT, "%08x", key.hashCode());
    }
}
