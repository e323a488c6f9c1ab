package dev.voicegateway.app.service;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.os.PowerManager;
import dev.voicegateway.app.VoiceGatewayApp;

/**
 * The reconnect alarm of {@link KeepAwake}: the link retries now if it is still waiting. The system
 * keeps the CPU awake only while onReceive runs, and the retry runs a moment later on the core's
 * thread (where the link takes its own wake lock), so a short wake lock with a timeout bridges the two.
 */
public final class ReconnectAlarm extends BroadcastReceiver {
    private static final long BRIDGE_MS = 10000;

    @Override
    public void onReceive(Context context, Intent intent) {
        PowerManager power = (PowerManager) context.getSystemService(Context.POWER_SERVICE);
        if (power != null) power.newWakeLock(PowerManager.PARTIAL_WAKE_LOCK, "VoiceGateway:alarm").acquire(BRIDGE_MS);
        VoiceGatewayApp.of(context).client().alarm();
    }
}
