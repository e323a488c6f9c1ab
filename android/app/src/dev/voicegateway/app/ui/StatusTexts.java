package dev.voicegateway.app.ui;

import android.content.Context;
import dev.voicegateway.app.R;
import dev.voicegateway.core.PhoneStatus;

/** The status screen's and the service notification's words for the core's state. */
public final class StatusTexts {
    private StatusTexts() {
    }

    /** The connection in words; {@code countdown} adds the seconds to the next attempt (for a screen that ticks). */
    public static String link(Context c, PhoneStatus s, boolean countdown) {
        switch (s.link) {
            case UNPAIRED: return c.getString(R.string.link_unpaired);
            case STOPPED: return c.getString(R.string.link_stopped);
            case CONNECTING: return c.getString(R.string.link_connecting);
            case CONNECTED: return connected(c);
            default:
                if (!countdown) return c.getString(R.string.link_retrying_soon);
                long seconds = Math.max(0, (s.retryAt - System.currentTimeMillis() + 999) / 1000);
                return c.getString(R.string.link_retrying, seconds);
        }
    }

    /** Connected, and over which network: the Wi-Fi for a gateway on the LAN, or the phone's default. */
    private static String connected(Context c) {
        String network = dev.voicegateway.app.VoiceGatewayApp.of(c).lan().lastChoice();
        if ("wifi".equals(network)) return c.getString(R.string.link_connected_wifi);
        if ("default".equals(network)) return c.getString(R.string.link_connected_default);
        return c.getString(R.string.link_connected);
    }

    public static String call(Context c, PhoneStatus.CallSummary call) {
        if (call == null) return c.getString(R.string.call_none);
        String number = call.remoteNumber == null || call.remoteNumber.isEmpty() ? c.getString(R.string.unknown_number) : call.remoteNumber;
        String direction = c.getString("incoming".equals(call.direction) ? R.string.direction_incoming : R.string.direction_outgoing);
        String text = c.getString(R.string.call_summary, direction, number, call.state);
        return call.callId == null ? text : text + "\n" + call.callId;
    }
}
