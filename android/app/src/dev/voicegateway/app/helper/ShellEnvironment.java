package dev.voicegateway.app.helper;

import android.app.Application;
import android.app.Instrumentation;
import android.content.Context;
import android.content.pm.ApplicationInfo;
import android.os.Build;
import dev.voicegateway.app.compat.ShellContext;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.helper.CallAudioDiagnostics;
import dev.voicegateway.core.helper.ShellSetup;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * What a process started by app_process lacks and the audio framework wants: an ActivityThread
 * with a system Context, an Application whose package is the shell's, and (Android 12+) a
 * ConfigurationController. The steps and their order per API level are the core's
 * ({@link ShellSetup}); the approach is scrcpy's (Genymobile/scrcpy, server Workarounds.apply,
 * fillConfigurationController, fillAppInfo, fillAppContext). All of it is hidden API, reached by
 * reflection (a process of the shell user is not subject to the hidden-API policy of apps). Every
 * step that fails is logged, written down for the self-test ({@link #report}) and skipped: what
 * depends on it then fails with its own message when a call starts.
 */
final class ShellEnvironment {
    /** What each step did, in order: {name, "filled"|"failed"|"skipped", message}. One environment per process. */
    private static final List<String[]> REPORT = new ArrayList<String[]>();

    private ShellEnvironment() {
    }

    /** The shell's Context over the system context, or null when no system context can be made. */
    static Context context(Log log) {
        Class<?> activityThread;
        Object thread;
        try {
            activityThread = Class.forName("android.app.ActivityThread");
            // new ActivityThread(), made the current one and a system thread, as system_server's is.
            thread = make(activityThread);
            set(activityThread, null, "sCurrentActivityThread", thread);
            set(activityThread, thread, "mSystemThread", Boolean.TRUE);
        } catch (Throwable e) {
            note(log, "ActivityThread", e);
            return null;
        }
        ShellContext context = null;
        for (String step : ShellSetup.steps(Build.VERSION.SDK_INT)) {
            try {
                if (step.equals(ShellSetup.CONFIGURATION_CONTROLLER)) {
                    configurationController(activityThread, thread);
                } else if (step.equals(ShellSetup.BOUND_APPLICATION)) {
                    boundApplication(activityThread, thread);
                } else if (step.equals(ShellSetup.SYSTEM_CONTEXT)) {
                    // ContextImpl getSystemContext() (hidden)
                    Method systemContext = activityThread.getDeclaredMethod("getSystemContext");
                    systemContext.setAccessible(true);
                    context = new ShellContext((Context) systemContext.invoke(thread));
                } else if (step.equals(ShellSetup.INITIAL_APPLICATION)) {
                    if (context == null) {
                        record(step, "skipped", "no system context");
                        continue;
                    }
                    initialApplication(activityThread, thread, context);
                }
                record(step, "filled", "");
            } catch (Throwable e) {
                note(log, step, e);
            }
        }
        return context;
    }

    /** What {@link #context} did, step by step, for {@link CallAudioDiagnostics#environmentStep}. */
    static void report(CallAudioDiagnostics diagnostics) {
        synchronized (REPORT) {
            for (String[] r : REPORT) diagnostics.environmentStep(r[0], r[1], r[2]);
        }
    }

    /**
     * ActivityThread.mConfigurationController = new ConfigurationController(thread) (hidden, API
     * 31+; its constructor takes an ActivityThreadInternal, which ActivityThread implements).
     */
    private static void configurationController(Class<?> activityThread, Object thread) throws Exception {
        Class<?> controller = Class.forName("android.app.ConfigurationController");
        Class<?> internal = Class.forName("android.app.ActivityThreadInternal");
        Constructor<?> ctor = controller.getDeclaredConstructor(internal);
        ctor.setAccessible(true);
        set(activityThread, thread, "mConfigurationController", ctor.newInstance(thread));
    }

    /** ActivityThread.mBoundApplication: an AppBindData whose appInfo names the shell's package. */
    private static void boundApplication(Class<?> activityThread, Object thread) throws Exception {
        Class<?> bindData = Class.forName("android.app.ActivityThread$AppBindData");
        Object data = make(bindData);
        ApplicationInfo info = new ApplicationInfo();
        info.packageName = ShellContext.SHELL_PACKAGE;
        set(bindData, data, "appInfo", info);
        set(activityThread, thread, "mBoundApplication", data);
    }

    /**
     * ActivityThread.mInitialApplication: an Application attached to the ShellContext (public
     * Instrumentation.newApplication, API 1), so that currentOpPackageName() and
     * currentAttributionSource() answer the shell's package (ShellSetup.INITIAL_APPLICATION).
     */
    private static void initialApplication(Class<?> activityThread, Object thread, Context context) throws Exception {
        Application app = Instrumentation.newApplication(Application.class, context);
        set(activityThread, thread, "mInitialApplication", app);
    }

    private static void note(Log log, String step, Throwable e) {
        Throwable cause = e instanceof java.lang.reflect.InvocationTargetException && e.getCause() != null ? e.getCause() : e;
        String message = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        log.log(Log.WARN, "shell environment: " + step + " failed: " + message, null);
        record(step, "failed", message);
    }

    private static void record(String step, String result, String message) {
        synchronized (REPORT) {
            REPORT.add(new String[] {step, result, message});
        }
    }

    /** A new instance through the class's no-argument constructor, hidden or not. */
    private static Object make(Class<?> c) throws Exception {
        Constructor<?> ctor = c.getDeclaredConstructor();
        ctor.setAccessible(true);
        return ctor.newInstance();
    }

    /** Sets a (hidden) field; {@code target} null for a static one. */
    static void set(Class<?> c, Object target, String name, Object value) throws Exception {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    /**
     * Android 11 lets only a foreground uid record; the shell counts as foreground while one of
     * the Shell app's activities is shown (scrcpy's AudioDirectCapture.startWorkaroundAndroid11
     * starts HeapDumpActivity for this). The phone must be unlocked for it to come to the front.
     */
    static void showShellWindow(Log log) {
        run(log, "am", "start", "-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER", "-f", "0x10000000",
                "-n", ShellContext.SHELL_PACKAGE + "/.HeapDumpActivity");
    }

    /** Closes the Shell app again (scrcpy: forceStopPackage). */
    static void closeShellWindow(Log log) {
        run(log, "am", "force-stop", ShellContext.SHELL_PACKAGE);
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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.log(Log.WARN, "could not run " + command[0] + " " + command[1] + ": " + e, null);
        }
    }
}
