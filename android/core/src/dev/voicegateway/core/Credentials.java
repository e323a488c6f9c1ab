package dev.voicegateway.core;

import org.json.JSONException;
import org.json.JSONObject;

/**
 * What pairing gave this phone. Kept in private storage in the same JSON shape as the Node
 * simulator's token file ({gatewayUrl, deviceId, deviceToken, pairedAt}); the token never reaches a
 * log line: {@link #toString} leaves it out.
 */
public final class Credentials {
    public final GatewayAddress gateway;
    public final String deviceId;
    public final String deviceToken;
    public final String pairedAt;

    public Credentials(GatewayAddress gateway, String deviceId, String deviceToken, String pairedAt) {
        this.gateway = gateway;
        this.deviceId = deviceId;
        this.deviceToken = deviceToken;
        this.pairedAt = pairedAt;
    }

    public String toJson() {
        try {
            return new JSONObject()
                    .put("gatewayUrl", gateway.base())
                    .put("deviceId", deviceId)
                    .put("deviceToken", deviceToken)
                    .put("pairedAt", pairedAt)
                    .toString(2) + "\n";
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads the stored JSON; null when it is damaged or incomplete (the phone must pair again). */
    public static Credentials fromJson(String text) {
        try {
            JSONObject o = new JSONObject(text);
            String id = o.optString("deviceId", "");
            String token = o.optString("deviceToken", "");
            if (id.isEmpty() || token.isEmpty()) return null;
            return new Credentials(GatewayAddress.parse(o.getString("gatewayUrl")), id, token, o.optString("pairedAt", ""));
        } catch (JSONException e) {
            return null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "Credentials{gateway=" + gateway + ", deviceId=" + deviceId + "}";
    }
}
