package dev.voicegateway.app.helper;

import dev.voicegateway.core.Log;

/** The helper's log: logcat, tag VGAudioHelper (`adb logcat -s VGAudioHelper`). */
final class HelperLog implements Log {
    static final String TAG = "VGAudioHelper";

    @Override
    public void log(int level, String message, Throwable error) {
        int priority = level >= ERROR ? android.util.Log.ERROR : level >= WARN ? android.util.Log.WARN : level >= INFO ? android.util.Log.INFO : android.util.Log.DEBUG;
        android.util.Log.println(priority, TAG, error == null ? message : message + "\n" + android.util.Log.getStackTraceString(error));
    }
}
