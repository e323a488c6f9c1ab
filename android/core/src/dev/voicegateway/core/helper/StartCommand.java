package dev.voicegateway.core.helper;

/**
 * The one command that starts the audio helper as the shell (docs/android.md, "Starting it"):
 * app_process runs the helper's class from the installed APK, detached with setsid and nohup so
 * that it outlives the adb session (it dies when the phone restarts).
 *
 * <p>The command itself ({@link #shell}) runs in the phone's shell. How it is wrapped for the
 * computer's shell differs: no single quoting works in cmd.exe, PowerShell and POSIX shells alike
 * (cmd keeps single quotes as text and splits on its own |, & and >; PowerShell and sh expand $( )
 * inside double quotes). So the app shows `adb shell` first and the command apart, to paste at the
 * phone's prompt, which works from any computer; the one-line forms per shell are here too.
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
        // The command holds no ', " or % on purpose: the one-line forms below rely on it.
        return "CLASSPATH=$(pm path " + packageName + " | cut -d: -f2) setsid nohup app_process /system/bin " + MAIN_CLASS
                + " --uid " + appUid + " --package " + packageName + " >/dev/null 2>&1 &";
    }

    /**
     * The form the app shows: open the phone's shell, then paste the command at its prompt. The
     * computer's shell only ever sees `adb shell`, so this is the same in cmd, PowerShell and sh.
     */
    public static String steps(String packageName, int appUid) {
        return "adb shell\n" + shell(packageName, appUid) + "\nexit";
    }

    /** One line for POSIX shells (Linux, macOS): single quotes keep everything as text. */
    public static String posix(String packageName, int appUid) {
        return "adb shell '" + shell(packageName, appUid) + "'";
    }

    /** One line for PowerShell: a single-quoted string is literal there too ($ is not expanded). */
    public static String powerShell(String packageName, int appUid) {
        return posix(packageName, appUid);
    }

    /**
     * One line for Windows cmd.exe: inside double quotes cmd treats |, &amp;, &gt; and $ as text
     * (only % and " stay special, and the command has neither).
     */
    public static String cmd(String packageName, int appUid) {
        return "adb shell \"" + shell(packageName, appUid) + "\"";
    }

    /** The POSIX one-line form (kept for callers that want one line). */
    public static String adb(String packageName, int appUid) {
        return posix(packageName, appUid);
    }
}
