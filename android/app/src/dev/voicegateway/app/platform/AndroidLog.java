package dev.voicegateway.app.platform;

import dev.voicegateway.core.Log;
import java.util.regex.Pattern;

/**
 * The core's {@link Log} over android.util.Log (tag "VoiceGateway"). The core never puts the device
 * token in a message; as a second line of defence anything shaped like a bearer token or a
 * {@code deviceToken} field is masked before it reaches logcat, exception texts included.
 */
public final class AndroidLog implements Log {
    public static final String TAG = "VoiceGateway";
    private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)\\S+");
    private static final Pattern TOKEN_FIELD = Pattern.compile("(\"?deviceToken\"?\\s*[:=]\\s*\"?)[^\",\\s}]+");

    @Override
    public void log(int level, String message, Throwable error) {
        String text = message;
        if (error != null) text = text + "\n" + android.util.Log.getStackTraceString(error);
        android.util.Log.println(priority(level), TAG, redact(text));
    }

    static String redact(String text) {
        String masked = BEARER.matcher(text).replaceAll("$1[redacted]");
        return TOKEN_FIELD.matcher(masked).replaceAll("$1[redacted]");
    }

    private static int priority(int level) {
        switch (level) {
            case Log.DEBUG: return android.util.Log.DEBUG;
            case Log.INFO: return android.util.Log.INFO;
            case Log.WARN: return android.util.Log.WARN;
            default: return android.util.Log.ERROR;
        }
    }
}
