package dev.voicegateway.jvm;

import dev.voicegateway.core.CommandRefused;
import dev.voicegateway.core.NativeCall;
import dev.voicegateway.core.Protocol;
import dev.voicegateway.core.TelecomStates;
import dev.voicegateway.core.Telephony;
import java.util.ArrayList;
import java.util.List;
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
public final class SimulatedTelephony implements Telephony {
    public enum Outcome { ANSWER, BUSY, NO_ANSWER, FAILED, MANUAL }

    private final ScheduledExecutorService executor;
    private volatile Listener listener;
    private NativeCall call;
    private ScheduledFuture<?> pending;
    private Outcome outcome = Outcome.ANSWER;
    private long ringMs = 2000;
    private String refuseDialCode;
    private final StringBuilder tones = new StringBuilder();

    public SimulatedTelephony(ScheduledExecutorService executor) {
        this.executor = executor;
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
                    move(c);
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
            }
        });
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
        Listener l = listener;
        if (l != null) l.onCallChanged(next);
    }
}
