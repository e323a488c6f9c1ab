package dev.voicegateway.core;

import dev.voicegateway.core.audio.AudioCapabilities;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/** The spec's Device {@code health} object, from what the phone can tell; unknown fields are left out. */
public final class HealthReport {
    private HealthReport() {
    }

    public static JSONObject build(DeviceStatus status, DeviceInfo info, String audio, AudioCapabilities capabilities, long nowMillis) {
        return build(status, info, audio, capabilities, null, nowMillis);
    }

    /** With {@code sims} (extension 1.4) when the platform can choose the SIM; null leaves them out. */
    public static JSONObject build(DeviceStatus status, DeviceInfo info, String audio, AudioCapabilities capabilities, List<SimCard> sims, long nowMillis) {
        JSONObject h = new JSONObject();
        try {
            Integer battery = status.battery();
            if (battery != null) h.put("battery", Math.max(0, Math.min(100, battery.intValue())));
            Boolean charging = status.charging();
            if (charging != null) h.put("charging", charging.booleanValue());
            String network = status.network();
            if (network != null && network.matches("wifi|cellular|ethernet|other|none")) h.put("network", network);
            Integer signal = status.signal();
            if (signal != null) h.put("signal", Math.max(0, Math.min(4, signal.intValue())));
            String carrier = status.carrier();
            if (carrier != null && !carrier.isEmpty()) h.put("carrier", clip(carrier, 100));
            h.put("audio", audio);
            if (capabilities != null) h.put("audioCapabilities", capabilities.toJson());
            if (sims != null) {
                JSONArray list = new JSONArray();
                Set<Integer> slots = new HashSet<Integer>();
                // The gateway refuses a list with a slot twice or out of range, and the whole report with it.
                for (SimCard sim : sims) {
                    if (sim.slot >= 0 && sim.slot <= SimCard.MAX_SLOT && slots.add(Integer.valueOf(sim.slot))) list.put(sim.toJson());
                }
                h.put("sims", list);
            }
            h.put("appVersion", clip(info.appVersion, 50));
            h.put("android", clip(info.android, 50));
            h.put("model", clip(info.model, 100));
            h.put("reportedAt", Iso8601.format(nowMillis));
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        return h;
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
