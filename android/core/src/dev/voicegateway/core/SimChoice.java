package dev.voicegateway.core;

import java.util.List;

/**
 * What a {@link Telephony} that can place a call from a given SIM adds (phone protocol extension
 * 1.4). A platform that implements it reports {@code health.sims}, which tells the gateway it may
 * send {@code sim} in {@code dial}; one that does not is never sent it.
 */
public interface SimChoice {
    /** The SIMs now, in slot order; empty when there is none. Quick: asks the platform, no waiting. */
    List<SimCard> sims();

    /** Places an outgoing call from the SIM in {@code slot}; refusals as {@link Telephony#dial}, and SIM_UNAVAILABLE. */
    void dial(String number, int slot) throws CommandRefused;
}
