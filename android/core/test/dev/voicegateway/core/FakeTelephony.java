package dev.voicegateway.core;

import java.util.ArrayList;
import java.util.List;

/** Records what the core asks of the platform; refuses when told to. */
public final class FakeTelephony implements Telephony {
    public final List<String> asked = new ArrayList<String>();
    public final List<NativeCall> platformCalls = new ArrayList<NativeCall>();
    public CommandRefused refuseNext;
    public RuntimeException throwNext;
    public Listener listener;

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    private void ask(String what) throws CommandRefused {
        if (throwNext != null) {
            RuntimeException e = throwNext;
            throwNext = null;
            throw e;
        }
        if (refuseNext != null) {
            CommandRefused e = refuseNext;
            refuseNext = null;
            throw e;
        }
        asked.add(what);
    }

    @Override
    public void dial(String number) throws CommandRefused {
        ask("dial " + number);
    }

    @Override
    public void answer(String id) throws CommandRefused {
        ask("answer " + id);
    }

    @Override
    public void reject(String id) throws CommandRefused {
        ask("reject " + id);
    }

    @Override
    public void hangup(String id) throws CommandRefused {
        ask("hangup " + id);
    }

    @Override
    public void hold(String id) throws CommandRefused {
        ask("hold " + id);
    }

    @Override
    public void unhold(String id) throws CommandRefused {
        ask("unhold " + id);
    }

    @Override
    public void startTone(String id, char digit) throws CommandRefused {
        ask("tone " + digit);
    }

    @Override
    public void stopTone(String id) {
        asked.add("stop tone");
    }

    @Override
    public List<NativeCall> calls() {
        return new ArrayList<NativeCall>(platformCalls);
    }
}
