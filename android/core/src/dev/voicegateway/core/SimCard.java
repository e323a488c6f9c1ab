package dev.voicegateway.core;

import org.json.JSONException;
import org.json.JSONObject;

/**
 * One SIM of the phone as health reports it (phone protocol extension 1.4, docs/phone-protocol.md):
 * the slot index, the carrier, the number when readable, whether calls go out on it by default,
 * and whether it can place calls now.
 */
public final class SimCard {
    /** Slots are 0..7 in the protocol; a platform slot outside is not reported. */
    public static final int MAX_SLOT = 7;

    public final int slot;
    public final String carrier;
    public final String number;
    public final boolean defaultForCalls;
    public final boolean usable;

    public SimCard(int slot, String carrier, String number, boolean defaultForCalls, boolean usable) {
        this.slot = slot;
        this.carrier = carrier;
        this.number = number;
        this.defaultForCalls = defaultForCalls;
        this.usable = usable;
    }

    public JSONObject toJson() {
        JSONObject o = new JSONObject();
        try {
            o.put("slot", slot);
            if (carrier != null && !carrier.isEmpty()) o.put("carrier", clip(carrier, 100));
            if (number != null && !number.isEmpty()) o.put("number", clip(number, 64));
            o.put("defaultForCalls", defaultForCalls);
            o.put("usable", usable);
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        return o;
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
