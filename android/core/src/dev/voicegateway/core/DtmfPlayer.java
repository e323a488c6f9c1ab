package dev.voicegateway.core;

import java.util.ArrayDeque;

/**
 * Plays keypad digits into a call one at a time: each tone sounds for {@link #TONE_MS}, then
 * {@link #GAP_MS} of silence, so the far end reads "11" as two presses. Used on the core's clock.
 */
public final class DtmfPlayer {
    public static final long TONE_MS = 250;
    public static final long GAP_MS = 100;

    private final Telephony telephony;
    private final Clock clock;
    private final Log log;
    private final ArrayDeque<Character> digits = new ArrayDeque<Character>();
    private String nativeCallId;
    private Clock.Timer timer;
    private boolean sounding;

    public DtmfPlayer(Telephony telephony, Clock clock, Log log) {
        this.telephony = telephony;
        this.clock = clock;
        this.log = log;
    }

    /** Queues digits for the call (digits queued for another call are dropped). */
    public void play(String callNativeId, String newDigits) {
        if (!callNativeId.equals(nativeCallId)) stop();
        nativeCallId = callNativeId;
        for (int i = 0; i < newDigits.length(); i++) digits.add(newDigits.charAt(i));
        if (timer == null) next();
    }

    /** Stops at once (the call ended): a sounding tone is stopped, the rest dropped. */
    public void stop() {
        if (timer != null) timer.cancel();
        timer = null;
        if (sounding && nativeCallId != null) telephony.stopTone(nativeCallId);
        sounding = false;
        digits.clear();
        nativeCallId = null;
    }

    public boolean isPlaying() {
        return timer != null;
    }

    private void next() {
        Character d = digits.poll();
        if (d == null) {
            timer = null;
            return;
        }
        final String id = nativeCallId;
        try {
            telephony.startTone(id, d.charValue());
            sounding = true;
        } catch (CommandRefused e) {
            log.log(Log.WARN, "tone " + d + " not played: " + e.getMessage(), null);
        }
        timer = clock.schedule(new Runnable() {
            @Override
            public void run() {
                if (sounding) telephony.stopTone(id);
                sounding = false;
                timer = clock.schedule(new Runnable() {
                    @Override
                    public void run() {
                        next();
                    }
                }, GAP_MS);
            }
        }, TONE_MS);
    }
}
