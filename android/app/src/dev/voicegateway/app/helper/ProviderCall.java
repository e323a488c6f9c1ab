package dev.voicegateway.app.helper;

import android.os.Build;
import android.os.Bundle;
import android.os.IBinder;
import android.os.RemoteException;
import dev.voicegateway.app.compat.ShellAttribution;
import dev.voicegateway.app.compat.ShellContext;
import dev.voicegateway.core.helper.HelperAnnouncer;
import dev.voicegateway.core.helper.HelperChannel;
import dev.voicegateway.core.helper.HelperLink;
import dev.voicegateway.core.helper.PeerPolicy;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The helper's way to the app's provider, as the shell: ActivityManager's
 * getContentProviderExternal (the shell holds ACCESS_CONTENT_PROVIDERS_EXTERNALLY, and the
 * provider's permission, INTERACT_ACROSS_USERS_FULL) and IContentProvider.call, both hidden and
 * reached by reflection; a process started by app_process is not held to the hidden-API policy of
 * apps (scrcpy's server calls the same hidden interfaces). Their signatures per version, as
 * frameworks/base core/java/android/app/IActivityManager.aidl and android/content/IContentProvider
 * declare them (and Shizuku calls them: ShizukuService.sendBinderToUserApp,
 * IContentProviderUtils.callCompat):
 * <pre>
 * getContentProviderExternal(String name, int userId, IBinder token)              API 26-28
 * getContentProviderExternal(String name, int userId, IBinder token, String tag)  API 29+
 * removeContentProviderExternal(String name, IBinder token)                       API 26-28
 * removeContentProviderExternalAsUser(String name, IBinder token, int userId)     API 29+
 * call(String callingPkg, String method, String arg, Bundle extras)                                API 26-28
 * call(String callingPkg, String authority, String method, String arg, Bundle extras)              API 29
 * call(String callingPkg, String attributionTag, String authority, String method, String arg, Bundle) API 30
 * call(AttributionSource source, String authority, String method, String arg, Bundle extras)       API 31+
 * </pre>
 * The token is null, as Shizuku passes it: ActivityManager then counts the external reference, and
 * removing it with a null token takes the count back.
 */
final class ProviderCall implements HelperAnnouncer.App {
    /** PowerExemptionManager.REASON_SHELL (API 31), the reason code Shizuku gives for the same exemption. */
    private static final int REASON_SHELL = 316;
    private static final long IDLE_EXEMPTION_MS = 30000;

    private final String appPackage;
    private final String authority;
    private final int appUid;
    private final int userId;

    ProviderCall(String appPackage, int appUid) {
        this.appPackage = appPackage;
        this.appUid = appUid;
        this.authority = HelperChannel.authority(appPackage);
        // An app's uid is userId * 100000 + its appId (android.os.UserHandle.PER_USER_RANGE).
        this.userId = appUid / 100000;
    }

    @Override
    public HelperChannel.Extras extras() {
        return new BinderChannel.BundleExtras(new Bundle());
    }

    @Override
    public HelperChannel.Extras call(String method, HelperChannel.Extras request) throws IOException {
        int sdk = Build.VERSION.SDK_INT;
        if (HelperChannel.ANNOUNCE.equals(method)) exemptFromIdle(sdk);
        Object am;
        Class<?> iam;
        try {
            am = Class.forName("android.app.ActivityManager").getMethod("getService").invoke(null);
            iam = Class.forName("android.app.IActivityManager");
        } catch (Exception e) {
            throw new IOException("no ActivityManager: " + e);
        }
        Object holder;
        try {
            holder = sdk >= 29
                    ? iam.getMethod("getContentProviderExternal", String.class, int.class, IBinder.class, String.class).invoke(am, authority, userId, null, authority)
                    : iam.getMethod("getContentProviderExternal", String.class, int.class, IBinder.class).invoke(am, authority, userId, null);
        } catch (InvocationTargetException e) {
            // Not the app's word: ActivityManager's own (e.g. IllegalArgumentException "Attempt to launch
            // content provider before system ready" while the phone boots): retried, never an end.
            throw new IOException("getContentProviderExternal: " + e.getCause());
        } catch (Exception e) {
            throw new IOException("getContentProviderExternal: " + e);
        }
        if (holder == null) throw new HelperAnnouncer.NoApp("no provider " + authority + " for user " + userId);
        try {
            checkUid(holder);
            Object provider = holder.getClass().getField("provider").get(holder);
            if (provider == null) throw new HelperAnnouncer.NoApp("the provider " + authority + " did not start");
            Bundle extras = ((BinderChannel.BundleExtras) request).bundle;
            Bundle reply = (Bundle) providerCall(sdk).invoke(provider, arguments(sdk, method, extras));
            return new BinderChannel.BundleExtras(reply == null ? new Bundle() : reply);
        } catch (InvocationTargetException e) {
            throw failure("call", e.getCause());
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("IContentProvider.call: " + e);
        } finally {
            release(iam, am, sdk);
        }
    }

    /**
     * A reinstalled app has a new uid, which this helper (started with the old one) would refuse at
     * every OPEN: say so and end, rather than announce itself in vain. ContentProviderHolder.info is
     * the provider's ProviderInfo, whose applicationInfo.uid is the app's.
     */
    private void checkUid(Object holder) throws Exception {
        Object info = holder.getClass().getField("info").get(holder);
        if (!(info instanceof android.content.pm.ProviderInfo)) return;
        int uid = ((android.content.pm.ProviderInfo) info).applicationInfo.uid;
        if (uid != appUid) {
            throw new HelperAnnouncer.Refused(appPackage + " is now uid " + uid + ", not " + appUid + " (installed again): run the start command the app shows again");
        }
    }

    /**
     * Exempts the app from Doze and the background-start limits for 30 s before each announcement,
     * as Shizuku does before it sends its Binder (ShizukuService.sendBinderToUserApp): the call may
     * start the app's process, which then starts its foreground service, and Android 12+ refuses
     * that from the background otherwise (ForegroundServiceStartNotAllowedException). The shell holds
     * CHANGE_DEVICE_IDLE_TEMP_WHITELIST. IDeviceIdleController.addPowerSaveTempWhitelistApp is
     * (String packageName, long duration, int userId, String reason) before API 31 and gained an int
     * reasonCode before the reason from 31. Best effort: a phone without it still gets the announcement.
     */
    private void exemptFromIdle(int sdk) {
        try {
            Object binder = Class.forName("android.os.ServiceManager").getMethod("getService", String.class).invoke(null, "deviceidle");
            Object idle = Class.forName("android.os.IDeviceIdleController$Stub").getMethod("asInterface", IBinder.class).invoke(null, binder);
            Class<?> iface = Class.forName("android.os.IDeviceIdleController");
            if (sdk >= 31) {
                iface.getMethod("addPowerSaveTempWhitelistApp", String.class, long.class, int.class, int.class, String.class)
                        .invoke(idle, appPackage, IDLE_EXEMPTION_MS, userId, REASON_SHELL, "audio helper");
            } else {
                iface.getMethod("addPowerSaveTempWhitelistApp", String.class, long.class, int.class, String.class)
                        .invoke(idle, appPackage, IDLE_EXEMPTION_MS, userId, "audio helper");
            }
        } catch (Exception e) {
            // Logged by the announcement's own outcome if the app then cannot start; nothing else to do.
        }
    }

    private static Method providerCall(int sdk) throws Exception {
        Class<?> icp = Class.forName("android.content.IContentProvider");
        if (sdk >= 31) {
            return icp.getMethod("call", Class.forName("android.content.AttributionSource"), String.class, String.class, String.class, Bundle.class);
        }
        if (sdk == 30) return icp.getMethod("call", String.class, String.class, String.class, String.class, String.class, Bundle.class);
        if (sdk == 29) return icp.getMethod("call", String.class, String.class, String.class, String.class, Bundle.class);
        return icp.getMethod("call", String.class, String.class, String.class, Bundle.class);
    }

    private Object[] arguments(int sdk, String method, Bundle extras) {
        String pkg = ShellContext.SHELL_PACKAGE;
        if (sdk >= 31) return new Object[] {ShellAttribution.source(), authority, method, null, extras};
        if (sdk == 30) return new Object[] {pkg, null, authority, method, null, extras};
        if (sdk == 29) return new Object[] {pkg, authority, method, null, extras};
        return new Object[] {pkg, method, null, extras};
    }

    private void release(Class<?> iam, Object am, int sdk) {
        try {
            if (sdk >= 29) iam.getMethod("removeContentProviderExternalAsUser", String.class, IBinder.class, int.class).invoke(am, authority, null, userId);
            else iam.getMethod("removeContentProviderExternal", String.class, IBinder.class).invoke(am, authority, null);
        } catch (Exception e) {
            // Only a reference count in ActivityManager: it goes when this process does.
        }
    }

    /** The app's refusals (sent back through Binder as the exceptions the provider threw) end the helper; the rest is retried. */
    private static IOException failure(String what, Throwable cause) {
        if (cause instanceof SecurityException || cause instanceof IllegalArgumentException) {
            return new HelperAnnouncer.Refused(cause.getMessage());
        }
        if (cause instanceof RemoteException) return new IOException(what + ": the app's process is gone (" + cause.getClass().getSimpleName() + ")");
        return new IOException(what + ": " + cause);
    }

    @Override
    public void watch(Object binder, final Runnable onDeath) throws IOException {
        try {
            ((IBinder) binder).linkToDeath(new IBinder.DeathRecipient() {
                @Override
                public void binderDied() {
                    onDeath.run();
                }
            }, 0);
        } catch (RemoteException e) {
            throw new IOException("the app's process is gone");
        }
    }

    /** The helper the app holds now, as a newly started helper reaches it to ask it to hand over (as the shell). */
    HelperLink runningHelper() {
        return new HelperLink() {
            @Override
            public Connection open() throws IOException {
                Object binder = call(HelperChannel.CURRENT, extras()).getBinder(HelperChannel.KEY_HELPER);
                if (binder == null) throw new IOException("no audio helper is running");
                return BinderChannel.open((IBinder) binder, PeerPolicy.SHELL_UID, null);
            }
        };
    }
}
