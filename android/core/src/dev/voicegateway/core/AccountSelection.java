package dev.voicegateway.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Calls Telecom holds in SELECT_PHONE_ACCOUNT until someone names a SIM. Telecom itself never gives
 * up on such a call, so without this a dual-SIM phone set to "ask every time" kept the gateway's
 * call waiting forever. Each waiting call gets an account at once when one can be chosen (the slot
 * the gateway asked for, else {@link PhoneAccounts#choose}) and, in any case, a deadline: a call
 * still waiting when it passes is ended with cause {@link #NOT_CHOSEN}. Used on the core's clock.
 */
public final class AccountSelection {
    /** The reason a call that got no account ends with (call.failed), documented in docs/android.md. */
    public static final String NOT_CHOSEN = "SIM_NOT_CHOSEN";
    public static final long DEFAULT_TIMEOUT_MS = 10000;

    /** What the platform does with the outcome. */
    public interface Platform {
        /** Call.phoneAccountSelected(handle, false) on the phone. */
        void select(String nativeCallId, String accountId);

        /** Ends the waiting call (Call.disconnect on the phone), reporting {@code reason}. */
        void giveUp(String nativeCallId, String reason);
    }

    private final Clock clock;
    private final long timeoutMs;
    private final Platform platform;
    private final Map<String, Clock.Timer> deadlines = new HashMap<String, Clock.Timer>();

    public AccountSelection(Clock clock, long timeoutMs, Platform platform) {
        this.clock = clock;
        this.timeoutMs = timeoutMs;
        this.platform = platform;
    }

    /**
     * A call waits for an account. {@code slot} is the SIM the gateway asked for, or null; the
     * lists come from the call's intent extras and the platform. Repeated reports of the same call
     * do not move its deadline.
     */
    public void waiting(final String nativeCallId, Integer slot, List<String> available, List<String> suggested,
            String defaultId, List<PhoneAccounts.Account> accounts) {
        if (!deadlines.containsKey(nativeCallId)) {
            deadlines.put(nativeCallId, clock.schedule(new Runnable() {
                @Override
                public void run() {
                    if (deadlines.remove(nativeCallId) == null) return;
                    platform.giveUp(nativeCallId, NOT_CHOSEN + ": no SIM could be chosen for the call within " + timeoutMs + " ms");
                }
            }, timeoutMs));
        }
        String chosen = slot != null ? PhoneAccounts.forSlot(accounts, slot.intValue()) : PhoneAccounts.choose(available, suggested, defaultId, accounts);
        if (chosen != null && (available == null || available.isEmpty() || available.contains(chosen))) {
            platform.select(nativeCallId, chosen);
        }
    }

    /** The call left SELECT_PHONE_ACCOUNT (or ended): its deadline is dropped. */
    public void settled(String nativeCallId) {
        Clock.Timer t = deadlines.remove(nativeCallId);
        if (t != null) t.cancel();
    }

    /** Calls still waiting, for tests and the status screen. */
    public int waitingCount() {
        return deadlines.size();
    }
}
