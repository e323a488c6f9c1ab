package dev.voicegateway.core;

import java.util.List;

/**
 * Which of Telecom's phone accounts (one per SIM; a PhoneAccountHandle, named here by its id) a call
 * goes out on. Pure logic: the platform lists the accounts and carries out the choice.
 */
public final class PhoneAccounts {
    private PhoneAccounts() {
    }

    /** One call-capable account of a SIM: its handle's id, the SIM's slot, and whether it can call now. */
    public static final class Account {
        public final String id;
        public final int slot;
        public final boolean usable;

        public Account(String id, int slot, boolean usable) {
            this.id = id;
            this.slot = slot;
            this.usable = usable;
        }
    }

    /** The id of the usable account of {@code slot}, or null: the dial is then refused with SIM_UNAVAILABLE. */
    public static String forSlot(List<Account> accounts, int slot) {
        for (Account a : accounts) {
            if (a.slot == slot && a.usable) return a.id;
        }
        return null;
    }

    /**
     * The account for a call Telecom left in SELECT_PHONE_ACCOUNT ("ask every time") when the gateway
     * asked for no SIM: the first suggested one Telecom offers (EXTRA_SUGGESTED_PHONE_ACCOUNTS of the
     * intent extras), else the phone's default for calls, else the first usable one offered; null when
     * none fits (the call is then ended, see {@link AccountSelection}). Only accounts in {@code
     * available} (AVAILABLE_PHONE_ACCOUNTS) are taken: Telecom ignores any other.
     */
    public static String choose(List<String> available, List<String> suggested, String defaultId, List<Account> accounts) {
        if (available == null || available.isEmpty()) return null;
        if (suggested != null) {
            for (String id : suggested) {
                if (available.contains(id) && usable(accounts, id)) return id;
            }
        }
        if (defaultId != null && available.contains(defaultId) && usable(accounts, defaultId)) return defaultId;
        for (String id : available) {
            if (usable(accounts, id)) return id;
        }
        return null;
    }

    /** An account the platform did not describe is taken as usable: Telecom offered it. */
    private static boolean usable(List<Account> accounts, String id) {
        for (Account a : accounts) {
            if (a.id.equals(id)) return a.usable;
        }
        return true;
    }

    /** The slot of account {@code id}, or -1. */
    public static int slotOf(List<Account> accounts, String id) {
        for (Account a : accounts) {
            if (a.id.equals(id)) return a.slot;
        }
        return -1;
    }
}
