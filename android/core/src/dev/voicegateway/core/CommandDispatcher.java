package dev.voicegateway.core;

/**
 * What the phone does with a gateway command: checks it against the call it names, asks the
 * platform, and answers with the ack. The checks mirror the Node simulator's (src/simulator/
 * commands.ts) so either phone answers the same command the same way. Used on the core's clock.
 */
public final class CommandDispatcher {
    /** The answer to one command. */
    public static final class Ack {
        public final boolean ok;
        public final String code;
        public final String message;

        private Ack(boolean ok, String code, String message) {
            this.ok = ok;
            this.code = code;
            this.message = message;
        }

        static Ack ok() {
            return new Ack(true, null, null);
        }

        static Ack refused(String code, String message) {
            return new Ack(false, code, message);
        }
    }

    private final Telephony telephony;
    private final CallRegistry calls;
    private final DtmfPlayer dtmf;
    private final Log log;

    public CommandDispatcher(Telephony telephony, CallRegistry calls, DtmfPlayer dtmf, Log log) {
        this.telephony = telephony;
        this.calls = calls;
        this.dtmf = dtmf;
        this.log = log;
    }

    public Ack handle(Command cmd) {
        try {
            return act(cmd);
        } catch (CommandRefused e) {
            return Ack.refused(e.code, e.getMessage());
        } catch (RuntimeException e) {
            // The platform threw (SecurityException, IllegalStateException, …): say so, stay up.
            log.log(Log.ERROR, "command " + cmd.action + " failed callId=" + cmd.callId, e);
            return Ack.refused(Protocol.PLATFORM_ERROR, cmd.action + " failed on the phone: " + e);
        }
    }

    private Ack act(Command cmd) throws CommandRefused {
        String action = cmd.action;
        if (Protocol.DIAL.equals(action)) return dial(cmd);
        if (!(Protocol.ANSWER.equals(action) || Protocol.REJECT.equals(action) || Protocol.HANGUP.equals(action)
                || Protocol.HOLD.equals(action) || Protocol.UNHOLD.equals(action) || Protocol.DTMF.equals(action))) {
            return Ack.refused(Protocol.BAD_COMMAND, "unknown action \"" + action + "\"");
        }
        CallRegistry.TrackedCall call = calls.forCommand(cmd.callId);
        if (call == null) return Ack.refused(Protocol.NO_CALL, "the phone has no call " + cmd.callId);
        int state = call.state;
        boolean ringingIncoming = call.incoming && !call.everActive
                && (state == TelecomStates.RINGING || state == TelecomStates.SIMULATED_RINGING);
        String spec = CallEvents.specState(state);
        if (Protocol.ANSWER.equals(action)) {
            if (!ringingIncoming) return invalid("answer", call);
            telephony.answer(call.nativeCallId);
        } else if (Protocol.REJECT.equals(action)) {
            if (!ringingIncoming) return invalid("reject", call);
            calls.markRejectRequested(call);
            telephony.reject(call.nativeCallId);
        } else if (Protocol.HANGUP.equals(action)) {
            dtmf.stop();
            telephony.hangup(call.nativeCallId);
        } else if (Protocol.HOLD.equals(action)) {
            if (state != TelecomStates.ACTIVE) return invalid("hold", call);
            telephony.hold(call.nativeCallId);
        } else if (Protocol.UNHOLD.equals(action)) {
            if (state != TelecomStates.HOLDING) return invalid("unhold", call);
            telephony.unhold(call.nativeCallId);
        } else {
            String digits = cmd.payload.optString("digits", "");
            if (!digits.matches("[0-9*#]+") || digits.length() > 64) {
                return Ack.refused(Protocol.BAD_COMMAND, "dtmf needs payload.digits matching ^[0-9*#]+$ (at most 64)");
            }
            if (!spec.equals("active") && !spec.equals("held")) return invalid("send tones on", call);
            dtmf.play(call.nativeCallId, digits);
        }
        return Ack.ok();
    }

    private Ack dial(Command cmd) throws CommandRefused {
        Object to = cmd.payload.opt("to");
        if (!(to instanceof String) || ((String) to).trim().isEmpty()) return Ack.refused(Protocol.BAD_COMMAND, "dial needs payload.to");
        if (cmd.callId == null || cmd.callId.isEmpty()) return Ack.refused(Protocol.BAD_COMMAND, "dial needs a callId");
        if (!isDialable(((String) to).trim())) {
            return Ack.refused(Protocol.BAD_COMMAND, "the phone dials numbers only: digits (+ at the start), then pauses (, ;) with keypad tones;"
                    + " service codes such as *#06# are not dialled");
        }
        if (calls.busy()) {
            CallRegistry.TrackedCall current = calls.current();
            return Ack.refused(Protocol.DEVICE_BUSY, current != null
                    ? "the phone already has a call (" + (current.callId != null ? current.callId : current.nativeCallId) + ", " + CallEvents.specState(current.state) + ")"
                    : "the phone is in a call made on the phone itself");
        }
        Object sim = cmd.payload.opt("sim");
        if (sim != null) {
            // Extension 1.4: the gateway sends sim only to a phone whose health listed its SIMs.
            if (!(sim instanceof Integer) || ((Integer) sim).intValue() < 0) return Ack.refused(Protocol.BAD_COMMAND, "dial payload.sim must be a slot number (0, 1, ...)");
            if (!(telephony instanceof SimChoice)) return Ack.refused(Protocol.SIM_UNAVAILABLE, "this phone cannot choose the SIM of a call");
            ((SimChoice) telephony).dial(((String) to).trim(), ((Integer) sim).intValue());
        } else {
            telephony.dial(((String) to).trim());
        }
        calls.expectDial(cmd.callId, ((String) to).trim());
        return Ack.ok();
    }

    /**
     * Digits with + at the start, then optionally pauses followed by keypad tones. A * or # before
     * the first pause makes a service code (call forwarding, the IMEI…), which the gateway must not
     * be able to send to the phone's network; the gateway refuses them too (src/calls/dialable.ts).
     */
    static boolean isDialable(String number) {
        return number.matches("\\+?[0-9]+([,;][0-9*#,;]*)?");
    }

    private static Ack invalid(String verb, CallRegistry.TrackedCall call) {
        return Ack.refused(Protocol.INVALID_STATE, "cannot " + verb + " a call that is " + call.direction() + " and " + CallEvents.specState(call.state));
    }
}
