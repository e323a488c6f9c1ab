package dev.voicegateway.app.adb;

import android.app.RemoteInput;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.os.Bundle;
import dev.voicegateway.app.VoiceGatewayApp;

/**
 * The notification's inline reply: the pairing code (never logged) and the port it belongs to. Not
 * exported: only our own PendingIntent reaches it. The pairing runs on the self-start's thread and
 * finishes the broadcast when done (goAsync), within its 15 s connection timeout.
 */
public final class PairingCodeReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        Bundle results = RemoteInput.getResultsFromIntent(intent);
        CharSequence typed = results == null ? null : results.getCharSequence(PairingNotification.REPLY_KEY);
        int port = intent.getIntExtra(PairingNotification.EXTRA_PORT, -1);
        VoiceGatewayApp.of(context).selfStarter().codeTyped(typed, port, goAsync());
    }
}
