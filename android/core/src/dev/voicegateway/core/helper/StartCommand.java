package dev.voicegateway.core.helper;

/**
 * The one command that starts the audio helper as the shell (docs/android.md, "Starting the
 * audio helper"): app_process runs the helper's class from the installed APK, detached with
 * setsid and nohup so that it outlives the adb session (it dies when the phone restarts).
 */
public final class StartCommand {
    public static final String MAIN_CLASS = "dev.voicegateway.app.helper.AudioHelper";

    private StartCommand() {
    }

    /** What to run in `adb shell` (or in any shell of the phone's shell user). */
    public static String shell(String packageName, int appUid) {
        if (!packageName.matches("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+")) {
            throw new IllegalArgumentException("not a package name: " + packageName);
        }
        if (appUid < 10000) throw new IllegalArgumentException("uid " + appUid + " is not an app's");
        // app_process's second argument (the parent directory) is unused; the APK is the class path.
        return "CLASSPATH=$(pm path " + packageName + " | cut -d: -f2) setsid nohup app_process /system/bin " + MAIN_CLASS
                + " --uid " + appUid + " --package " + packageName + " >/dev/null 2>&1 &";
    }

    /** The same, from a computer with adb (USB, or Wireless debugging after `adb pair` and `adb connect`). */
    public static String adb(String packageName, int appUid) {
        return "adb shell '" + shell(packageName, appUid) + "'";
    }
}
