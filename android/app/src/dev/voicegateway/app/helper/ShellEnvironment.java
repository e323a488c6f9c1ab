package dev.voicegateway.app.helper;

import android.content.Context;
import android.content.pm.ApplicationInfo;
import android.os.Build;
import dev.voicegateway.app.compat.ShellContext;
import dev.voicegateway.core.Log;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * What a process started by app_process lacks and the audio framework wants: an ActivityThread
 * with a system Context, and the shell's package name where AudioRecord looks for the caller's.
 * All of it is hidden API, reached by reflection (a process of the shell user is not subject to
 * the hidden-API policy of apps); the approach is scrcpy's (Genymobile/scrcpy, server
 * Workarounds/FakeContext). Every step that fails is logged and skipped: what depends on it then
 * fails with its own message when a call starts.
 */
final class ShellEnvironment {
    private ShellEnvironment() {
    }

    /** The shell's Context over the system context, or null when no system context can be made. */
    static Context context(Log log) {
        try {
            Class<?> activityThread = Class.forName("android.app.ActivityThread");
            // new ActivityThread(), made the current one and a system thread, as system_server's is.
            Object thread = make(activityThread);
            set(activityThread, null, "sCurrentActivityThread", thread);
            set(activityThread, thread, "mSystemThread", Boolean.TRUE);
            if (Build.VERSION.SDK_INT < 31) bindShellPackage(activityThread, thread, log);
            // ContextImpl getSystemContext() (hidden)
            Method systemContext = activityThread.getDeclaredMethod("getSystemContext");
            systemContext.setAccessible(true);
            return new ShellContext((Context) systemContext.invoke(thread));
        } catch (Throwable e) {
            log.log(Log.WARN, "no system context: " + e, null);
            return null;
        }
    }

    /**
     * Android 11 and older: AudioRecord asks ActivityThread.currentOpPackageName(), which reads
     * mBoundApplication.appInfo.packageName; make it the shell's.
     */
    private static void bindShellPackage(Class<?> activityThread, Object thread, Log log) {
        try {
            Class<?> bindData = Class.forName("android.app.ActivityThread$AppBindData");
            Object data = make(bindData);
            ApplicationInfo info = new ApplicationInfo();
            info.packageName = ShellContext.SHELL_PACKAGE;
            set(bindData, data, "appInfo", info);
            set(activityThread, thread, "mBoundApplication", data);
        } catch (Throwable e) {
            log.log(Log.WARN, "could not present the helper as " + ShellContext.SHELL_PACKAGE + ": " + e, null);
        }
    }

    /** A new instance through the class's no-argument constructor, hidden or not. */
    private static Object make(Class<?> c) throws Exception {
        Constructor<?> ctor = c.getDeclaredConstructor();
        ctor.setAccessible(true);
        return ctor.newInstance();
    }

    /** Sets a (hidden) field; {@code target} null for a static one. */
    private static void set(Class<?> c, Object target, String name, Object value) throws Exception {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    /**
     * Android 11 lets only a foreground uid record; the shell counts as foreground while one of
     * the Shell app's activities is shown. Starts it (the phone must be unlocked), runs {@code
     * start}, and closes the Shell app again.
     */
    static void inForeground(Runnable start, Log log) {
        run(log, "am", "start", "-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER", "-f", "0x10000000",
                "-n", ShellContext.SHELL_PACKAGE + "/.HeapDumpActivity");
        try {
            RuntimeException last = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                try {
                    Thread.sleep(100);
                    start.run();
                    return;
                } catch (RuntimeException e) {
                    last = e;
                }
            }
            throw last;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        } finally {
            run(log, "am", "force-stop", ShellContext.SHELL_PACKAGE);
        }
    }

    private static void run(Log log, String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            java.io.InputStream out = p.getInputStream();
            byte[] ignored = new byte[512];
            while (out.read(ignored) >= 0) {
                // what am prints is not needed
            }
            p.waitFor();
        } catch (Exception e) {
            log.log(Log.WARN, "could not run " + command[0] + " " + command[1] + ": " + e, null);
        }
    }
}
