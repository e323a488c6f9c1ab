package dev.voicegateway.core;

import java.util.ArrayList;
import java.util.List;

/** A FakeTelephony that can also choose the SIM: records "dial NUMBER sim SLOT"; refuses a slot with no usable SIM. */
public final class FakeDualSim implements Telephony, SimChoice {
    public final FakeTelephony plain = new FakeTelephony();
    public final List<SimCard> sims = new ArrayList<SimCard>();

    @Override
    public List<SimCard> sims() {
        return new ArrayList<SimCard>(sims);
    }

    @Override
    public void dial(String number, int slot) throws CommandRefused {
        for (SimCard s : sims) {
            if (s.slot == slot && s.usable) {
                plain.asked.add("dial " + number + " sim " + slot);
                return;
            }
        }
        throw new CommandRefused(Protocol.SIM_UNAVAILABLE, "no usable SIM in slot " + slot);
    }

    @Override public void setListener(Listener listener) { plain.setListener(listener); }
    @Override public void dial(String number) throws CommandRefused { plain.dial(number); }
    @Override public void answer(String id) throws CommandRefused { plain.answer(id); }
    @Override public void reject(String id) throws CommandRefused { plain.reject(id); }
    @Override public void hangup(String id) throws CommandRefused { plain.hangup(id); }
    @Override public void hold(String id) throws CommandRefused { plain.hold(id); }
    @Override public void unhold(String id) throws CommandRefused { plain.unhold(id); }
    @Override public void startTone(String id, char digit) throws CommandRefused { plain.startTone(id, digit); }
    @Override public void stopTone(String id) { plain.stopTone(id); }
    @Override public List<NativeCall> calls() { return plain.calls(); }
}
