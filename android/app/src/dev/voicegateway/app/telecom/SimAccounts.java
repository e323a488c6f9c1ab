package dev.voicegateway.app.telecom;

import android.content.Context;
import android.telecom.PhoneAccount;
import android.telecom.PhoneAccountHandle;
import android.telecom.TelecomManager;
import android.telephony.SubscriptionInfo;
import android.telephony.SubscriptionManager;
import android.telephony.TelephonyManager;
import dev.voicegateway.app.compat.SimCompat;
import dev.voicegateway.core.PhoneAccounts;
import dev.voicegateway.core.SimCard;
import java.util.ArrayList;
import java.util.List;

/**
 * The phone's SIMs and Telecom's phone accounts of them (phone protocol extension 1.4).
 *
 * SIMs: SubscriptionManager.getActiveSubscriptionInfoList (API 22, needs READ_PHONE_STATE).
 * Accounts: TelecomManager.getCallCapablePhoneAccounts (API 23). Telephony registers one account per
 * subscription; its handle's id is the subscription id on current versions and was the SIM's ICCID
 * on older ones (packages/services/Telephony, PhoneUtils.makePstnPhoneAccountHandleWithPrefix, and
 * TelecomAccountRegistry registering one PSTN account per Phone). From API 30,
 * TelephonyManager.getSubscriptionId(PhoneAccountHandle) says it outright (SimCompat); below, the
 * id is matched against both. A SIM is usable when its subscription is active and Telecom has an
 * enabled call-capable account for it. Nothing here has been seen on a device (docs/android.md).
 */
final class SimAccounts {
    private SimAccounts() {
    }

    /** One SIM with its account, when it has one. */
    static final class Sim {
        final SubscriptionInfo info;
        final PhoneAccountHandle handle;

        Sim(SubscriptionInfo info, PhoneAccountHandle handle) {
            this.info = info;
            this.handle = handle;
        }
    }

    static List<Sim> list(Context context) {
        List<Sim> out = new ArrayList<Sim>();
        List<SubscriptionInfo> subs;
        List<PhoneAccountHandle> handles;
        TelecomManager telecom = context.getSystemService(TelecomManager.class);
        TelephonyManager telephony = context.getSystemService(TelephonyManager.class);
        try {
            subs = SubscriptionManager.from(context).getActiveSubscriptionInfoList();
            handles = telecom == null ? null : telecom.getCallCapablePhoneAccounts();
        } catch (SecurityException e) {
            return out;
        }
        if (subs == null) return out;
        for (SubscriptionInfo info : subs) {
            PhoneAccountHandle match = null;
            if (handles != null) {
                for (PhoneAccountHandle h : handles) {
                    if (belongsTo(telephony, h, info) && enabled(telecom, h)) {
                        match = h;
                        break;
                    }
                }
            }
            out.add(new Sim(info, match));
        }
        return out;
    }

    private static boolean belongsTo(TelephonyManager telephony, PhoneAccountHandle handle, SubscriptionInfo info) {
        int subId = SimCompat.subscriptionIdOf(telephony, handle);
        if (subId >= 0) return subId == info.getSubscriptionId();
        String id = handle.getId();
        return id != null && (id.equals(String.valueOf(info.getSubscriptionId())) || (info.getIccId() != null && id.equals(info.getIccId())));
    }

    private static boolean enabled(TelecomManager telecom, PhoneAccountHandle handle) {
        PhoneAccount account = telecom.getPhoneAccount(handle);
        return account != null && account.isEnabled();
    }

    static String defaultId(Context context) {
        TelecomManager telecom = context.getSystemService(TelecomManager.class);
        try {
            PhoneAccountHandle h = telecom == null ? null : telecom.getDefaultOutgoingPhoneAccount("tel");
            return h == null ? null : h.getId();
        } catch (SecurityException e) {
            return null;
        }
    }

    static List<SimCard> cards(Context context) {
        List<SimCard> out = new ArrayList<SimCard>();
        String defaultId = defaultId(context);
        for (Sim s : list(context)) {
            int slot = s.info.getSimSlotIndex();
            if (slot < 0 || slot > SimCard.MAX_SLOT) continue;
            CharSequence carrier = s.info.getCarrierName();
            out.add(new SimCard(slot, carrier == null ? null : carrier.toString(), s.info.getNumber(),
                    s.handle != null && s.handle.getId().equals(defaultId), s.handle != null));
        }
        return out;
    }

    static List<PhoneAccounts.Account> accounts(List<Sim> sims) {
        List<PhoneAccounts.Account> out = new ArrayList<PhoneAccounts.Account>();
        for (Sim s : sims) {
            if (s.handle != null) out.add(new PhoneAccounts.Account(s.handle.getId(), s.info.getSimSlotIndex(), true));
        }
        return out;
    }

    static PhoneAccountHandle handleOf(List<Sim> sims, String id) {
        for (Sim s : sims) {
            if (s.handle != null && s.handle.getId().equals(id)) return s.handle;
        }
        return null;
    }
}
