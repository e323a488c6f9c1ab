package dev.voicegateway.core.helper;

/**
 * Who may talk to whom over the helper channel, by the caller's uid as Binder reports it
 * (Binder.getCallingUid(): the kernel's, which no caller can forge). Any app can reach the helper's
 * Binder once it has it, and any app could try to call the app's provider, so both ends check. Pure.
 */
public final class PeerPolicy {
    /** The shell user that `adb shell` runs as (android.os.Process.SHELL_UID, hidden in the SDK). */
    public static final int SHELL_UID = 2000;
    public static final int ROOT_UID = 0;

    /** What a peer of the helper may do. */
    public enum Role {
        /** The app: the whole protocol. */
        APP,
        /** The shell (or root, after `adb root`): only PING, SHUTDOWN and REPLACE, as a newly started helper does. */
        ADMIN,
        REFUSED
    }

    private final int appUid;
    private final String appPackage;

    public PeerPolicy(int appUid, String appPackage) {
        if (appUid < 10000) throw new IllegalArgumentException("uid " + appUid + " is not an app's (apps have 10000 and above)");
        this.appUid = appUid;
        this.appPackage = appPackage;
    }

    public int appUid() {
        return appUid;
    }

    /**
     * The role of a peer connecting to the helper. {@code peerProcess} is the peer's process name
     * when the transport can tell (null otherwise): with the app's uid, a process that is not the
     * app's package is an app installed after ours was removed, which Android gave the same uid.
     */
    public Role roleOf(int peerUid, String peerProcess) {
        // On a phone with several users an app's uid is userId * 100000 + its appId; only this very uid is the app.
        if (peerUid == appUid) {
            boolean ours = peerProcess == null || peerProcess.equals(appPackage) || peerProcess.startsWith(appPackage + ":");
            return ours ? Role.APP : Role.REFUSED;
        }
        if (peerUid == SHELL_UID || peerUid == ROOT_UID) return Role.ADMIN;
        return Role.REFUSED;
    }

    /** Whether a message of {@code type} from a peer of {@code role} is allowed. */
    public static boolean allows(Role role, int type) {
        if (role == Role.APP) return true;
        if (role == Role.ADMIN) return type == HelperMessage.HELLO || type == HelperMessage.PING || type == HelperMessage.SHUTDOWN || type == HelperMessage.REPLACE;
        return false;
    }

    /**
     * The app's provider's first step: only the shell (the helper, or `adb shell`) may announce a
     * helper or ask which one runs. Root is refused too: nothing of ours runs as root.
     */
    public static void requireShell(int callingUid) {
        if (callingUid != SHELL_UID) {
            throw new SecurityException("uid " + callingUid + " may not reach the audio helper channel: only the shell (uid " + SHELL_UID + ") may");
        }
    }

    /** The app's check of the other side: only a helper running as the shell (or root) is the helper. */
    public static boolean isHelper(int peerUid) {
        return peerUid == SHELL_UID || peerUid == ROOT_UID;
    }
}
