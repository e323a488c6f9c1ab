package dev.voicegateway.app.service;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import dev.voicegateway.app.VoiceGatewayApp;

/** The reconnect alarm of {@link KeepAwake}: the link retries now if it is still waiting. */
public final class ReconnectAlarm extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        VoiceGatewayApp.of(context).client().alarm();
    }
}
