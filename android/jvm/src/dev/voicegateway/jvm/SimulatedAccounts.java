package dev.voicegateway.jvm;

import dev.voicegateway.core.PhoneAccounts;
import dev.voicegateway.core.SimCard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Telecom's phone accounts as the host plays them: two SIMs, "sim-0" (slot 0) and "sim-1" (slot 1),
 * each usable or not, and the default account for calls, or none ("ask every time"). With none, a
 * placed call waits in SELECT_PHONE_ACCOUNT and, as Telecom does, the accounts on offer go into the
 * call's intent extras, not its extras (CallsManager.startOutgoingCall puts
 * AVAILABLE_PHONE_ACCOUNTS and EXTRA_SUGGESTED_PHONE_ACCOUNTS in the intent extras; see
 * docs/android.md). Guarded by the SimulatedTelephony that owns it.
 */
final class SimulatedAccounts {
    /** android.telecom.Call.AVAILABLE_PHONE_ACCOUNTS. */
    static final String AVAILABLE_PHONE_ACCOUNTS = "selectPhoneAccountAccounts";
    /** android.telecom.Call.EXTRA_SUGGESTED_PHONE_ACCOUNTS (API 29). */
    static final String EXTRA_SUGGESTED_PHONE_ACCOUNTS = "android.telecom.extra.SUGGESTED_PHONE_ACCOUNTS";

    private final String[] carriers = {"Simulated Carrier", "Second Carrier"};
    private final boolean[] usable = {true, true};
    private String defaultId = "sim-0";
    private String suggestedId;

    static String idOf(int slot) {
        return "sim-" + slot;
    }

    List<PhoneAccounts.Account> accounts() {
        List<PhoneAccounts.Account> out = new ArrayList<PhoneAccounts.Account>();
        for (int slot = 0; slot < usable.length; slot++) out.add(new PhoneAccounts.Account(idOf(slot), slot, usable[slot]));
        return out;
    }

    List<SimCard> sims() {
        List<SimCard> out = new ArrayList<SimCard>();
        for (int slot = 0; slot < usable.length; slot++) out.add(new SimCard(slot, carriers[slot], null, idOf(slot).equals(defaultId), usable[slot]));
        return out;
    }

    void setUsable(int slot, boolean value) {
        usable[slot] = value;
    }

    /** The default account's slot, or -1 for "ask every time". */
    void setDefaultSlot(int slot) {
        defaultId = slot < 0 ? null : idOf(slot);
    }

    /** The account Telecom suggests for the next "ask every time" call (-1: none). */
    void setSuggestedSlot(int slot) {
        suggestedId = slot < 0 ? null : idOf(slot);
    }

    String defaultId() {
        return defaultId;
    }

    /** The intent extras Telecom gives a call waiting in SELECT_PHONE_ACCOUNT: the usable accounts, and the suggestion. */
    Map<String, List<String>> selectionIntentExtras() {
        Map<String, List<String>> extras = new HashMap<String, List<String>>();
        List<String> available = new ArrayList<String>();
        for (PhoneAccounts.Account a : accounts()) {
            if (a.usable) available.add(a.id);
        }
        extras.put(AVAILABLE_PHONE_ACCOUNTS, available);
        if (suggestedId != null) extras.put(EXTRA_SUGGESTED_PHONE_ACCOUNTS, Collections.singletonList(suggestedId));
        return extras;
    }
}
