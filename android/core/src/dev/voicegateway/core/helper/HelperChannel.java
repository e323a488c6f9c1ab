package dev.voicegateway.core.helper;

/**
 * How the app and the audio helper meet, over Binder (docs/android.md, "The channel"). SELinux lets
 * no app connect to a socket of the shell's on Android 11-15, but Binder between them is allowed and
 * so is a file descriptor passed over it (../shared/android/sepolicy-facts.md). So, as Shizuku's
 * server reaches its apps (ShizukuService.sendBinderToUserApp): the helper, as the shell, finds the
 * app's ContentProvider through ActivityManager and calls it with a Bundle holding its Binder
 * ({@link #ANNOUNCE}); the app opens connections by a transaction on that Binder ({@link #OPEN}),
 * each answered with one end of a new socketpair carrying the framing of {@link HelperCodec}.
 * The names here are the wire between two builds of the app: change them only with {@link #VERSION}.
 */
public final class HelperChannel {
    /** Of this rendezvous (the framing inside a connection has its own, {@link HelperCodec#VERSION}). */
    public static final int VERSION = 1;

    /** The provider's authority is the app's package and this. */
    public static final String AUTHORITY_SUFFIX = ".audio-helper";

    /** Helper → app's provider: here is my Binder ({@link #KEY_HELPER}); the reply holds {@link #KEY_APP}. */
    public static final String ANNOUNCE = "announce";
    /** A newly started helper → app's provider: which helper do you hold ({@link #KEY_HELPER}, absent: none)? */
    public static final String CURRENT = "current";

    public static final String KEY_VERSION = "version";
    public static final String KEY_HELPER = "helper";
    /** The app process's own Binder: the helper watches it die to announce itself again. */
    public static final String KEY_APP = "app";

    /** The helper's Binder interface token (Parcel.writeInterfaceToken / enforceInterface). */
    public static final String DESCRIPTOR = "dev.voicegateway.app.helper.IAudioHelper";
    /** The one transaction: a new connection (IBinder.FIRST_CALL_TRANSACTION). */
    public static final int OPEN = 1;
    /** The reply's first int: then a file descriptor (OPENED), or a reason (REFUSED). */
    public static final int OPENED = 0;
    public static final int REFUSED = 1;

    private HelperChannel() {
    }

    public static String authority(String appPackage) {
        return appPackage + AUTHORITY_SUFFIX;
    }

    /**
     * What a provider call carries: a Bundle on the phone (putInt/getInt, putBinder/getBinder), a
     * map on the host. Binders are opaque here ({@code Object}): an IBinder on the phone.
     */
    public interface Extras {
        void putInt(String key, int value);

        int getInt(String key, int fallback);

        void putBinder(String key, Object binder);

        /** Null when absent. */
        Object getBinder(String key);
    }

    /** Extras in a map: the host's stand-in for a Bundle (the JVM runner and the tests). */
    public static final class MapExtras implements Extras {
        private final java.util.Map<String, Object> values = new java.util.HashMap<String, Object>();

        @Override
        public void putInt(String key, int value) {
            values.put(key, value);
        }

        @Override
        public int getInt(String key, int fallback) {
            Object v = values.get(key);
            return v instanceof Integer ? (Integer) v : fallback;
        }

        @Override
        public void putBinder(String key, Object binder) {
            values.put(key, binder);
        }

        @Override
        public Object getBinder(String key) {
            Object v = values.get(key);
            return v instanceof Integer ? null : v;
        }
    }
}
