package dev.voicegateway.core;

import dev.voicegateway.core.audio.AudioCapabilities;
import org.json.JSONException;
import org.json.JSONObject;

/** The spec's Device {@code health} object, from what the phone can tell; unknown fields are left out. */
public final class HealthReport {
    private HealthReport() {
    }

    public static JSONObject build(DeviceStatus status, DeviceInfo info, String audio, AudioCapabilities capabilities, long nowMillis) {
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
