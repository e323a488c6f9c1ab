package dev.voicegateway.core.adb;

/**
 * Taking the six-digit pairing code while the system's "Pair device with pairing code" dialog is on
 * screen (issue 24). The dialog stays on top of every app, so the code is typed into the app's
 * notification (an inline reply, as Shizuku's AdbPairingService does); the pairing service's port comes
 * from discovery (_adb-tls-pairing._tcp) and is lost when the dialog closes. Pure: the app's
 * notification shows {@link #prompt()} and hands what was typed to {@link #typed}. Times are the
 * caller's clock in milliseconds.
 */
public final class CodeEntry {
    /** How long a pairing attempt waits for the dialog and the code before it gives up. */
    public static final long DEFAULT_TIMEOUT_MS = 5 * 60 * 1000L;

    public enum State {
        /** Waiting for the pairing dialog's service to appear on this phone. */
        LOOKING_FOR_DIALOG,
        /** The dialog's port is known: waiting for the code. */
        READY_FOR_CODE,
        /** A valid code was handed to the pairing client. */
        PAIRING,
        PAIRED,
        FAILED,
        TIMED_OUT,
    }

    private final long deadline;
    private State state = State.LOOKING_FOR_DIALOG;
    private int port = -1;
    private String problem;

    public CodeEntry(long now, long timeoutMs) {
        if (timeoutMs <= 0) throw new IllegalArgumentException("timeout must be positive");
        this.deadline = now + timeoutMs;
    }

    public State state() {
        return state;
    }

    /** The pairing service's port, or -1 while none is known. */
    public int port() {
        return port;
    }

    /** Discovery saw the dialog's service at {@code port} (or lost it: -1, the dialog closed). */
    public void pairingPort(int port, long now) {
        if (finished() || expire(now)) return;
        if (port > 0 && port <= 65535) {
            this.port = port;
            if (state == State.LOOKING_FOR_DIALOG) state = State.READY_FOR_CODE;
            problem = null;
        } else if (state == State.READY_FOR_CODE) {
            this.port = -1;
            state = State.LOOKING_FOR_DIALOG;
        }
    }

    /**
     * What the person typed. Returns the code to pair with (six digits, the dialog's spaces taken out)
     * and moves to PAIRING, or null with {@link #prompt()} saying why (not six digits, no dialog open,
     * too late). A code typed before the dialog's service was seen is refused, not kept: the port it
     * belongs to is unknown.
     */
    public String typed(CharSequence text, long now) {
        if (expire(now) || finished()) return null;
        if (state == State.PAIRING) return null;
        String code = AdbDiscovery.pairingCode(text);
        if (code == null) {
            // What was typed is not repeated: it may be most of the code.
            problem = "The pairing code is the six digits the dialog shows. Type them again.";
            return null;
        }
        if (port < 0) {
            problem = "No pairing dialog was found on this phone yet: open Pair device with pairing code, then type the code.";
            return null;
        }
        problem = null;
        state = State.PAIRING;
        return code;
    }

    /** The pairing client succeeded. */
    public void paired() {
        state = State.PAIRED;
        problem = null;
    }

    /** The pairing client failed with a sentence for a person; a new dialog means a new attempt. */
    public void failed(String why) {
        state = State.FAILED;
        problem = why;
    }

    /** True (and TIMED_OUT) once the deadline has passed without a pairing. */
    public boolean expire(long now) {
        if (!finished() && state != State.PAIRING && now >= deadline) {
            state = State.TIMED_OUT;
            problem = null;
        }
        return state == State.TIMED_OUT;
    }

    public boolean finished() {
        return state == State.PAIRED || state == State.FAILED || state == State.TIMED_OUT;
    }

    /** The notification's text: what to do now, or what went wrong. */
    public String prompt() {
        switch (state) {
            case LOOKING_FOR_DIALOG:
                return problem != null ? problem
                        : "Open Developer options > Wireless debugging > Pair device with pairing code. Then type the code here.";
            case READY_FOR_CODE:
                return problem != null ? problem : "Type the six-digit code the pairing dialog shows.";
            case PAIRING:
                return "Pairing with Wireless debugging...";
            case PAIRED:
                return "Paired. The app can now start its audio helper by itself.";
            case FAILED:
                return "Pairing failed: " + problem + " Open Pair device with pairing code again to retry.";
            default:
                return "Pairing timed out. Start it again from the app.";
        }
    }
}
