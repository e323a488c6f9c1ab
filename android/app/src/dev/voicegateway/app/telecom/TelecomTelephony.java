package dev.voicegateway.app.telecom;

import android.Manifest;
import android.content.Context;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Bundle;
import android.telecom.Call;
import android.telecom.DisconnectCause;
import android.telecom.PhoneAccountHandle;
import android.telecom.TelecomManager;
import android.telecom.VideoProfile;
import android.telephony.TelephonyManager;
import dev.voicegateway.app.compat.CallDetails;
import dev.voicegateway.app.compat.DialerRole;
import dev.voicegateway.app.compat.SimCompat;
import dev.voicegateway.core.AccountSelection;
import dev.voicegateway.core.CommandRefused;
import dev.voicegateway.core.Log;
import dev.voicegateway.core.NativeCall;
import dev.voicegateway.core.PhoneAccounts;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.SimCard;
import dev.voicegateway.core.SimChoice;
import dev.voicegateway.core.SimStates;
import dev.voicegateway.core.TelecomStates;
import dev.voicegateway.core.Telephony;
import dev.voicegateway.core.ThreadClock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The core's {@link Telephony} over Telecom: the calls {@link CallService} is given, and
 * TelecomManager.placeCall for the dial command. Threads: Telecom calls {@link CallService} and
 * every Call.Callback on the main thread; the core calls in from its own thread. So the calls live in
 * a concurrent map, the Call methods used here are binder calls that are safe from any thread, and
 * each change leaves as an immutable {@link NativeCall}.
 */
public final class TelecomTelephony implements Telephony, SimChoice {
    /** Screens and the call notification hear of every change of the calls, on the main thread. */
    public interface CallsListener {
        void onCallsChanged();
    }

    /** A platform call, the id the gateway knows it by, and what we told the core last. */
    private static final class Entry {
        final String id;
        final Call call;
        final boolean incoming;
        final long createdAt;
        volatile int lastState = -1;
        /** Set when the app ended the call because no SIM could be chosen: the reason the core reports. */
        volatile String giveUpReason;
        Call.Callback callback;

        Entry(String id, Call call, boolean incoming, long createdAt) {
            this.id = id;
            this.call = call;
            this.incoming = incoming;
            this.createdAt = createdAt;
        }
    }

    private final Context context;
    private final Log log;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<String, Entry>();
    private final List<CallsListener> listeners = new CopyOnWriteArrayList<CallsListener>();
    private volatile Listener listener;
    private volatile CallService service;
    /** When the gateway last asked to dial (wall clock), to tell its call from one made by hand. */
    private volatile long lastGatewayDial;
    private static final long GATEWAY_DIAL_WINDOW_MS = 10000;

    /** Chooses the SIM of gateway calls Telecom leaves in SELECT_PHONE_ACCOUNT, with a deadline; on its own clock thread. */
    private final ThreadClock selectionClock;
    private final AccountSelection selection;

    public TelecomTelephony(Context context, Log log) {
        this.context = context.getApplicationContext();
        this.log = log;
        this.selectionClock = new ThreadClock("sim-choice", log);
        this.selection = new AccountSelection(selectionClock, AccountSelection.DEFAULT_TIMEOUT_MS, new AccountSelection.Platform() {
            @Override
            public void select(String nativeCallId, String accountId) {
                Entry entry = entries.get(nativeCallId);
                if (entry == null) return;
                for (PhoneAccountHandle h : accountsOffered(entry.call)) {
                    if (accountId.equals(h.getId())) {
                        log.log(Log.INFO, "the phone asks which SIM to use: taking account " + accountId, null);
                        entry.call.phoneAccountSelected(h, false);
                        return;
                    }
                }
            }

            @Override
            public void giveUp(String nativeCallId, String reason) {
                Entry entry = entries.get(nativeCallId);
                if (entry == null) return;
                log.log(Log.WARN, reason, null);
                entry.giveUpReason = reason;
                entry.call.disconnect();
            }
        });
    }

    // ---- from CallService (main thread) ------------------------------------------------------

    void bound(CallService s) {
        service = s;
    }

    /**
     * Telecom unbinds the in-call service once it has no calls for it. If calls are still here
     * then, Telecom stopped sharing them (another app became the default phone app mid-call): this
     * app can no longer see or control them, so for the core they end here.
     */
    void unbound(CallService s) {
        if (service == s) service = null;
        for (Entry e : entries.values()) {
            e.call.unregisterCallback(e.callback);
            if (e.lastState != TelecomStates.DISCONNECTED) {
                tell(new NativeCall(e.id, e.incoming, number(e.call.getDetails()), TelecomStates.DISCONNECTED, TelecomStates.CAUSE_OTHER,
                        "Telecom stopped sharing the call with the app (is it still the default phone app?)"));
            }
        }
        entries.clear();
        notifyListeners();
    }

    void callAdded(Call call) {
        if (find(call) != null) return;
        Call.Details details = call.getDetails();
        int state = call.getState();
        Boolean direction = details == null ? null : CallDetails.incoming(details);
        // Below Android 10 the direction is not published: a call that rings when we first see it is incoming.
        boolean incoming = direction != null ? direction.booleanValue()
                : state == TelecomStates.RINGING || state == TelecomStates.SIMULATED_RINGING;
        long createdAt = details == null ? 0 : CallDetails.creationTimeMillis(details);
        final Entry entry = new Entry(CallIds.of(call), call, incoming, createdAt);
        entry.callback = new Call.Callback() {
            @Override
            public void onStateChanged(Call c, int newState) {
                report(entry);
                if (newState == Call.STATE_SELECT_PHONE_ACCOUNT) chooseAccount(entry);
                else settled(entry.id);
            }

            @Override
            public void onPostDialWait(Call c, String remaining) {
                // A ';' in the number: nobody can confirm at a gateway's phone, so the rest is sent.
                try {
                    c.postDialContinue(true);
                } catch (RuntimeException e) {
                    log.log(Log.WARN, "could not continue the digits after a wait", e);
                }
            }

            @Override
            public void onDetailsChanged(Call c, Call.Details d) {
                notifyListeners();
            }
        };
        entries.put(entry.id, entry);
        call.registerCallback(entry.callback);
        report(entry);
        if (state == Call.STATE_SELECT_PHONE_ACCOUNT) chooseAccount(entry);
    }

    /**
     * A phone with two SIMs set to "ask every time" waits for a choice. A call the gateway placed
     * (within seconds of a dial command) takes the first account Telecom offers; a call made by hand
     * waits for the person on the in-call screen ({@link #accountsOffered}, {@link #selectAccount}).
     */
    private void chooseAccount(final Entry entry) {
        if (entry.incoming || System.currentTimeMillis() - lastGatewayDial > GATEWAY_DIAL_WINDOW_MS) {
            notifyListeners();
            return;
        }
        final List<String> available = ids(accountsOffered(entry.call));
        Call.Details details = entry.call.getDetails();
        final List<String> suggested = ids(SimCompat.suggestedAccounts(details == null ? null : details.getIntentExtras()));
        final String defaultId = SimAccounts.defaultId(context);
        final List<PhoneAccounts.Account> accounts = SimAccounts.accounts(SimAccounts.list(context));
        selectionClock.execute(new Runnable() {
            @Override
            public void run() {
                selection.waiting(entry.id, null, available, suggested, defaultId, accounts);
            }
        });
    }

    private static List<String> ids(List<PhoneAccountHandle> handles) {
        List<String> out = new ArrayList<String>();
        for (PhoneAccountHandle h : handles) out.add(h.getId());
        return out;
    }

    /** The call left SELECT_PHONE_ACCOUNT: its deadline goes. */
    private void settled(final String id) {
        selectionClock.execute(new Runnable() {
            @Override
            public void run() {
                selection.settled(id);
            }
        });
    }

    /** The accounts (SIMs) Telecom offers for a call waiting in SELECT_PHONE_ACCOUNT. */
    @SuppressWarnings("deprecation")
    public static List<PhoneAccountHandle> accountsOffered(Call call) {
        List<PhoneAccountHandle> out = new ArrayList<PhoneAccountHandle>();
        Call.Details details = call.getDetails();
        if (details == null) return out;
        // Telecom's CallsManager.startOutgoingCall puts the list in the call's intent extras
        // (setIntentExtrasAndStartTime; ParcelableCallUtils hands them over as getIntentExtras) on
        // current versions, and in the call's extras (call.setExtras) on 6.0: read both, intent first.
        // (packages/services/Telecomm, src/com/android/server/telecom/CallsManager.java)
        Bundle[] sources = {details.getIntentExtras(), details.getExtras()};
        for (Bundle extras : sources) {
            if (extras == null) continue;
            List<PhoneAccountHandle> listed = extras.getParcelableArrayList(Call.AVAILABLE_PHONE_ACCOUNTS);
            if (listed != null && !listed.isEmpty()) {
                out.addAll(listed);
                return out;
            }
        }
        return out;
    }

    /** The person chose a SIM on the in-call screen (main thread). */
    public void selectAccount(Call call, PhoneAccountHandle account) {
        call.phoneAccountSelected(account, false);
    }

    void callRemoved(Call call) {
        Entry entry = find(call);
        if (entry == null) return;
        call.unregisterCallback(entry.callback);
        // Telecom removes a call once it is disconnected; make sure the core saw the end.
        if (entry.lastState != TelecomStates.DISCONNECTED) report(entry, TelecomStates.DISCONNECTED);
        entries.remove(entry.id);
        notifyListeners();
    }

    void audioChanged() {
        notifyListeners();
    }

    private void report(Entry entry) {
        report(entry, entry.call.getState());
    }

    private void report(Entry entry, int state) {
        NativeCall snapshot = snapshot(entry, state);
        entry.lastState = snapshot.state;
        tell(snapshot);
        notifyListeners();
    }

    private void tell(NativeCall snapshot) {
        Listener l = listener;
        if (l == null) return;
        try {
            l.onCallChanged(snapshot);
        } catch (RuntimeException e) {
            log.log(Log.ERROR, "the core refused a call change", e);
        }
    }

    private NativeCall snapshot(Entry entry, int state) {
        Call.Details details = entry.call.getDetails();
        int code = TelecomStates.CAUSE_UNKNOWN;
        String reason = null;
        if (state == TelecomStates.DISCONNECTED && entry.giveUpReason != null) {
            code = TelecomStates.CAUSE_ERROR;
            reason = entry.giveUpReason;
        } else if (state == TelecomStates.DISCONNECTED && details != null && details.getDisconnectCause() != null) {
            DisconnectCause cause = details.getDisconnectCause();
            code = cause.getCode();
            reason = firstText(cause.getDescription(), cause.getReason(), cause.getLabel());
        }
        return new NativeCall(entry.id, entry.incoming, number(details), state, code, reason);
    }

    /** The remote number as Telecom gives it (tel: or sip: handle); empty when withheld. */
    public static String number(Call.Details details) {
        if (details == null || details.getHandle() == null) return "";
        if (details.getHandlePresentation() != TelecomManager.PRESENTATION_ALLOWED) return "";
        String part = details.getHandle().getSchemeSpecificPart();
        return part == null ? "" : part;
    }

    private static String firstText(CharSequence... texts) {
        for (CharSequence t : texts) if (t != null && t.toString().trim().length() > 0) return t.toString().trim();
        return null;
    }

    // ---- Telephony (the core's thread) -------------------------------------------------------

    @Override
    public void setListener(Listener l) {
        listener = l;
    }

    @Override
    public List<SimCard> sims() {
        return SimAccounts.cards(context);
    }

    @Override
    public void dial(String number) throws CommandRefused {
        place(number, null);
    }

    /** Extension 1.4: the call goes out on the SIM of {@code slot}, its account named in placeCall's extras. */
    @Override
    public void dial(String number, int slot) throws CommandRefused {
        List<SimAccounts.Sim> sims = SimAccounts.list(context);
        String id = PhoneAccounts.forSlot(SimAccounts.accounts(sims), slot);
        PhoneAccountHandle handle = id == null ? null : SimAccounts.handleOf(sims, id);
        if (handle == null) throw new CommandRefused(Protocol.SIM_UNAVAILABLE, "no SIM in slot " + slot + " can place calls now");
        place(number, handle);
    }

    private void place(String number, PhoneAccountHandle account) throws CommandRefused {
        if (!DialerRole.isHeld(context)) {
            throw new CommandRefused(Protocol.NOT_DEFAULT_DIALER,
                    "Voice Gateway is not this phone's default phone app, so it cannot control calls; make it the default on the app's status screen");
        }
        if (context.checkSelfPermission(Manifest.permission.CALL_PHONE) != PackageManager.PERMISSION_GRANTED) {
            throw new CommandRefused(Protocol.NO_PERMISSION, "the app is not allowed to make phone calls; allow it on the app's status screen");
        }
        String sim = simProblem();
        if (sim != null) throw new CommandRefused(Protocol.NO_SIM, sim);
        for (Entry e : entries.values()) {
            if (e.lastState != TelecomStates.DISCONNECTED) {
                throw new CommandRefused(Protocol.DEVICE_BUSY, "the phone already has a call (" + TelecomStates.name(e.lastState).toLowerCase(java.util.Locale.ROOT) + ")");
            }
        }
        TelecomManager telecom = context.getSystemService(TelecomManager.class);
        if (telecom == null) throw new CommandRefused(Protocol.PLATFORM_ERROR, "this phone has no Telecom service");
        try {
            lastGatewayDial = System.currentTimeMillis();
            Bundle extras = new Bundle();
            // TelecomManager.placeCall: EXTRA_PHONE_ACCOUNT_HANDLE names the account (SIM) to use;
            // without it Telecom takes the default, or asks (SELECT_PHONE_ACCOUNT).
            if (account != null) extras.putParcelable(TelecomManager.EXTRA_PHONE_ACCOUNT_HANDLE, account);
            telecom.placeCall(Uri.fromParts("tel", number, null), extras);
        } catch (SecurityException e) {
            throw new CommandRefused(Protocol.NO_PERMISSION, "Android refused to place the call: " + e.getMessage());
        }
    }

    /** Why no call can be placed with the SIM, or null when it is ready. */
    private String simProblem() {
        TelephonyManager telephony = context.getSystemService(TelephonyManager.class);
        if (telephony == null) return "this phone has no telephony";
        // The decision and why UNKNOWN is let through: core SimStates (host-tested); the values are
        // TelephonyManager's SIM_STATE_* constants.
        return SimStates.problem(telephony.getSimState());
    }

    @Override
    public void answer(String nativeCallId) throws CommandRefused {
        require(nativeCallId).call.answer(VideoProfile.STATE_AUDIO_ONLY);
    }

    @Override
    public void reject(String nativeCallId) throws CommandRefused {
        require(nativeCallId).call.reject(false, null);
    }

    @Override
    public void hangup(String nativeCallId) throws CommandRefused {
        require(nativeCallId).call.disconnect();
    }

    @Override
    public void hold(String nativeCallId) throws CommandRefused {
        Entry e = require(nativeCallId);
        Call.Details details = e.call.getDetails();
        if (details != null && !details.can(Call.Details.CAPABILITY_HOLD)) {
            throw new CommandRefused(Protocol.NOT_SUPPORTED, "this call cannot be put on hold (the network or the phone does not offer hold)");
        }
        e.call.hold();
    }

    @Override
    public void unhold(String nativeCallId) throws CommandRefused {
        require(nativeCallId).call.unhold();
    }

    @Override
    public void startTone(String nativeCallId, char digit) throws CommandRefused {
        require(nativeCallId).call.playDtmfTone(digit);
    }

    @Override
    public void stopTone(String nativeCallId) {
        Entry e = entries.get(nativeCallId);
        if (e != null) e.call.stopDtmfTone();
    }

    @Override
    public List<NativeCall> calls() {
        List<NativeCall> out = new ArrayList<NativeCall>();
        for (Entry e : sorted()) out.add(snapshot(e, e.call.getState()));
        return out;
    }

    private Entry require(String nativeCallId) throws CommandRefused {
        Entry e = entries.get(nativeCallId);
        if (e == null) throw new CommandRefused(Protocol.NO_CALL, "the phone has no call " + nativeCallId);
        return e;
    }

    private Entry find(Call call) {
        for (Entry e : entries.values()) if (e.call == call) return e;
        return null;
    }

    private List<Entry> sorted() {
        List<Entry> list = new ArrayList<Entry>(entries.values());
        Collections.sort(list, new Comparator<Entry>() {
            @Override
            public int compare(Entry a, Entry b) {
                return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
            }
        });
        return list;
    }

    // ---- for the screens (main thread) -------------------------------------------------------

    public void addCallsListener(CallsListener l) {
        listeners.add(l);
    }

    public void removeCallsListener(CallsListener l) {
        listeners.remove(l);
    }

    private void notifyListeners() {
        for (CallsListener l : listeners) {
            try {
                l.onCallsChanged();
            } catch (RuntimeException e) {
                log.log(Log.ERROR, "a call screen failed to update", e);
            }
        }
    }

    /** Every call Telecom has given us, oldest first (also calls made or received by hand). */
    public List<Call> platformCalls() {
        List<Call> out = new ArrayList<Call>();
        for (Entry e : sorted()) out.add(e.call);
        return out;
    }

    /** The nativeCallId of a call, or null when it is not one of ours. */
    public String idOf(Call call) {
        Entry e = find(call);
        return e == null ? null : e.id;
    }

    public boolean isIncoming(Call call) {
        Entry e = find(call);
        return e != null && e.incoming;
    }

    /** The bound in-call service (mute and audio route), or null when Telecom has no call for us. */
    public CallService service() {
        return service;
    }
}
