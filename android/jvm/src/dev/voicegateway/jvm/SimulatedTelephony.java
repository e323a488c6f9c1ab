package dev.voicegateway.jvm;

import dev.voicegateway.core.AccountSelection;
import dev.voicegateway.core.Clock;
import dev.voicegateway.core.CommandRefused;
import dev.voicegateway.core.NativeCall;
import dev.voicegateway.core.PhoneAccounts;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.SimCard;
import dev.voicegateway.core.SimChoice;
import dev.voicegateway.core.TelecomStates;
import dev.voicegateway.core.Telephony;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Telecom as the host plays it: calls move through Telecom's own states (CONNECTING, DIALING,
 * RINGING, ACTIVE, HOLDING, DISCONNECTING, DISCONNECTED with a DisconnectCause code), so the app's
 * core maps them to protocol events exactly as it does on a phone. How dials end is set like the
 * Node simulator's --outcome and --ring-ms. Callbacks come from the simulation's own thread.
 */
public final class SimulatedTelephony implements Telephony, SimChoice {
    public enum Outcome { ANSWER, BUSY, NO_ANSWER, FAILED, MANUAL }

    private final ScheduledExecutorService executor;
    private volatile Listener listener;
    private NativeCall call;
    private ScheduledFuture<?> pending;
    private Outcome outcome = Outcome.ANSWER;
    private long ringMs = 2000;
    private String refuseDialCode;
    private final StringBuilder tones = new StringBuilder();

    /** The SIMs and Telecom's accounts of them (two; see SimulatedAccounts). */
    private final SimulatedAccounts accounts = new SimulatedAccounts();
    /** The current call's intent extras and extras, as Call.Details would give them. */
    private Map<String, List<String>> intentExtras = Collections.emptyMap();
    private final Map<String, List<String>> detailsExtras = Collections.emptyMap();
    private final List<String> selections = new ArrayList<String>();
    private final AccountSelection selection;

    public SimulatedTelephony(ScheduledExecutorService executor) {
        this(executor, AccountSelection.DEFAULT_TIMEOUT_MS);
    }

    public SimulatedTelephony(ScheduledExecutorService executor, long selectTimeoutMs) {
        this.executor = executor;
        this.selection = new AccountSelection(new ExecutorClock(), selectTimeoutMs, new AccountSelection.Platform() {
            @Override
            public void select(String nativeCallId, String accountId) {
                accountSelected(nativeCallId, accountId);
            }

            @Override
            public void giveUp(String nativeCallId, String reason) {
                synchronized (SimulatedTelephony.this) {
                    if (call == null || !call.id.equals(nativeCallId)) return;
                    move(call.disconnected(TelecomStates.CAUSE_ERROR, reason));
                }
            }
        });
    }

    /** Timers of the account selection on the simulation's executor, under the simulation's lock. */
    private final class ExecutorClock implements Clock {
        @Override
        public long now() {
            return System.currentTimeMillis();
        }

        @Override
        public long elapsed() {
            return System.nanoTime() / 1000000L;
        }

        @Override
        public Timer schedule(final Runnable task, long delayMs) {
            final ScheduledFuture<?> f = executor.schedule(locked(task), delayMs, TimeUnit.MILLISECONDS);
            return new Timer() {
                @Override
                public void cancel() {
                    f.cancel(false);
                }
            };
        }

        @Override
        public void execute(Runnable task) {
            executor.execute(locked(task));
        }

        private Runnable locked(final Runnable task) {
            return new Runnable() {
                @Override
                public void run() {
                    synchronized (SimulatedTelephony.this) {
                        task.run();
                    }
                }
            };
        }
    }

    // ---- SIMs ----------------------------------------------------------------------------------------

    @Override
    public synchronized List<SimCard> sims() {
        return accounts.sims();
    }

    /** The SIM of {@code slot} (0 or 1) can place calls, or not. */
    public synchronized void setSimUsable(int slot, boolean usable) {
        accounts.setUsable(slot, usable);
    }

    /** The default SIM for calls, or -1: "ask every time" (calls wait in SELECT_PHONE_ACCOUNT). */
    public synchronized void setDefaultSim(int slot) {
        accounts.setDefaultSlot(slot);
    }

    /** The SIM Telecom suggests for "ask every time" calls (-1: none). */
    public synchronized void setSuggestedSim(int slot) {
        accounts.setSuggestedSlot(slot);
    }

    /** "nativeCallId accountId" for each account chosen for a call, oldest first. */
    public synchronized List<String> selections() {
        return new ArrayList<String>(selections);
    }

    /** The current call's intent extras (Call.Details.getIntentExtras), and its extras (getExtras): empty here, as on Telecom. */
    public synchronized Map<String, List<String>> intentExtras() {
        return new HashMap<String, List<String>>(intentExtras);
    }

    public synchronized Map<String, List<String>> detailsExtras() {
        return detailsExtras;
    }

    @Override
    public synchronized void dial(String number, int slot) throws CommandRefused {
        String account = PhoneAccounts.forSlot(accounts.accounts(), slot);
        if (account == null) throw new CommandRefused(Protocol.SIM_UNAVAILABLE, "no usable SIM in slot " + slot);
        place(number, account);
    }

    public synchronized void setOutcome(Outcome outcome, long ringMs) {
        this.outcome = outcome;
        this.ringMs = ringMs;
    }

    /** The next dials are refused with this code (NO_SIM, NO_PERMISSION, NOT_DEFAULT_DIALER …), or accepted again with null. */
    public synchronized void refuseDials(String code) {
        this.refuseDialCode = code;
    }

    /** Every keypad digit played into calls so far. */
    public synchronized String tones() {
        return tones.toString();
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public synchronized List<NativeCall> calls() {
        List<NativeCall> list = new ArrayList<NativeCall>();
        if (call != null) list.add(call);
        return list;
    }

    // ---- what the remote party and the network do ------------------------------------------------

    /** An incoming call from {@code number} starts ringing. */
    public synchronized void ringIncoming(String number) throws CommandRefused {
        if (call != null) throw new CommandRefused(Protocol.DEVICE_BUSY, "the simulated phone already has a call");
        move(new NativeCall("jvm-" + UUID.randomUUID(), true, number, TelecomStates.RINGING, 0, null));
    }

    /** The remote party hangs up (a ringing incoming call becomes a missed call). */
    public synchronized void remoteHangup() throws CommandRefused {
        NativeCall c = need();
        cancelPending();
        move(c.disconnected(c.incoming && c.state == TelecomStates.RINGING ? TelecomStates.CAUSE_MISSED : TelecomStates.CAUSE_REMOTE, null));
    }

    /** The callee of a dialing call picks up (outcome MANUAL). */
    public synchronized void remoteAnswer() throws CommandRefused {
        NativeCall c = need();
        if (c.incoming || c.state != TelecomStates.DIALING) throw new CommandRefused(Protocol.INVALID_STATE, "no dialing call");
        cancelPending();
        move(c.withState(TelecomStates.ACTIVE));
    }

    /** The callee of a dialing call is busy. */
    public synchronized void remoteBusy() throws CommandRefused {
        NativeCall c = need();
        if (c.incoming || c.state != TelecomStates.DIALING) throw new CommandRefused(Protocol.INVALID_STATE, "no dialing call");
        cancelPending();
        move(c.disconnected(TelecomStates.CAUSE_BUSY, "user busy"));
    }

    // ---- Telephony ----------------------------------------------------------------------------------

    @Override
    public synchronized void dial(String number) throws CommandRefused {
        place(number, accounts.defaultId());
    }

    /** placeCall with the account's handle in the extras, or none: Telecom then asks for one. */
    private void place(String number, final String account) throws CommandRefused {
        if (refuseDialCode != null) throw new CommandRefused(refuseDialCode, "refused by the simulation (" + refuseDialCode + ")");
        if (call != null) throw new CommandRefused(Protocol.DEVICE_BUSY, "the phone already has a call");
        final NativeCall c = new NativeCall("jvm-" + UUID.randomUUID(), false, number, TelecomStates.CONNECTING, 0, null);
        call = c;
        // Telecom reports the new call after placeCall returns, from its own thread.
        executor.execute(new Runnable() {
            @Override
            public void run() {
                synchronized (SimulatedTelephony.this) {
                    if (call == null || !call.id.equals(c.id)) return;
                    if (account == null) {
                        awaitAccount(c);
                        return;
                    }
                    selections.add(c.id + " " + account);
                    move(c);
                    startDialing(c);
                }
            }
        });
    }

    /** "Ask every time": the call waits in SELECT_PHONE_ACCOUNT with the offer in its intent extras, and the app chooses. */
    private void awaitAccount(NativeCall c) {
        intentExtras = accounts.selectionIntentExtras();
        move(c.withState(TelecomStates.SELECT_PHONE_ACCOUNT));
        selection.waiting(c.id, null, intentExtras.get(SimulatedAccounts.AVAILABLE_PHONE_ACCOUNTS),
                intentExtras.get(SimulatedAccounts.EXTRA_SUGGESTED_PHONE_ACCOUNTS), accounts.defaultId(), accounts.accounts());
    }

    /** Call.phoneAccountSelected: Telecom goes on placing the call, from its own thread. */
    private void accountSelected(final String id, final String account) {
        executor.execute(new Runnable() {
            @Override
            public void run() {
                synchronized (SimulatedTelephony.this) {
                    if (call == null || !call.id.equals(id) || call.state != TelecomStates.SELECT_PHONE_ACCOUNT) return;
                    selection.settled(id);
                    selections.add(id + " " + account);
                    move(call.withState(TelecomStates.CONNECTING));
                    startDialing(call);
                }
            }
        });
    }

    private void startDialing(final NativeCall c) {
        move(c.withState(TelecomStates.DIALING));
        if (outcome != Outcome.MANUAL) {
            pending = executor.schedule(new Runnable() {
                @Override
                public void run() {
                    finishDial(c.id);
                }
            }, ringMs, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void finishDial(String id) {
        if (call == null || !call.id.equals(id) || call.state != TelecomStates.DIALING) return;
        pending = null;
        switch (outcome) {
            case ANSWER:
                move(call.withState(TelecomStates.ACTIVE));
                break;
            case BUSY:
                move(call.disconnected(TelecomStates.CAUSE_BUSY, "user busy"));
                break;
            case NO_ANSWER:
                move(call.disconnected(TelecomStates.CAUSE_MISSED, "no answer"));
                break;
            default:
                move(call.disconnected(TelecomStates.CAUSE_ERROR, "simulated failure"));
        }
    }

    @Override
    public synchronized void answer(String id) throws CommandRefused {
        NativeCall c = need(id);
        move(c.withState(TelecomStates.ACTIVE));
    }

    @Override
    public synchronized void reject(String id) throws CommandRefused {
        NativeCall c = need(id);
        move(c.disconnected(TelecomStates.CAUSE_REJECTED, null));
    }

    @Override
    public synchronized void hangup(String id) throws CommandRefused {
        NativeCall c = need(id);
        cancelPending();
        boolean ringingIncoming = c.incoming && c.state == TelecomStates.RINGING;
        move(c.withState(TelecomStates.DISCONNECTING));
        move(c.disconnected(ringingIncoming ? TelecomStates.CAUSE_REJECTED : TelecomStates.CAUSE_LOCAL, null));
    }

    @Override
    public synchronized void hold(String id) throws CommandRefused {
        move(need(id).withState(TelecomStates.HOLDING));
    }

    @Override
    public synchronized void unhold(String id) throws CommandRefused {
        move(need(id).withState(TelecomStates.ACTIVE));
    }

    @Override
    public synchronized void startTone(String id, char digit) throws CommandRefused {
        need(id);
        tones.append(digit);
    }

    @Override
    public void stopTone(String id) {
        // Nothing sounds on the host.
    }

    private NativeCall need() throws CommandRefused {
        if (call == null) throw new CommandRefused(Protocol.NO_CALL, "the simulated phone has no call");
        return call;
    }

    private NativeCall need(String id) throws CommandRefused {
        NativeCall c = need();
        if (!c.id.equals(id)) throw new CommandRefused(Protocol.NO_CALL, "no call " + id);
        return c;
    }

    private void cancelPending() {
        if (pending != null) pending.cancel(false);
        pending = null;
    }

    /** Moves the call and tells the listener; a disconnected call leaves the phone. */
    private void move(NativeCall next) {
        call = next.state == TelecomStates.DISCONNECTED ? null : next;
        if (next.state != TelecomStates.SELECT_PHONE_ACCOUNT) selection.settled(next.id);
        if (call == null) intentExtras = Collections.emptyMap();
        Listener l = listener;
        if (l != null) l.onCallChanged(next);
    }
}
