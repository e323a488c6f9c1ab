package dev.voicegateway.app.service;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;

/**
 * After a reboot (BOOT_COMPLETED) or an update of the app (MY_PACKAGE_REPLACED) a paired phone
 * connects again. Both broadcasts let an app start a foreground service from the background.
 * The phone must have been unlocked once since the reboot: the credentials are in the app's
 * credential-protected storage.
 */
public final class BootReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        String action = intent == null ? null : intent.getAction();
        if (!Intent.ACTION_BOOT_COMPLETED.equals(action) && !Intent.ACTION_MY_PACKAGE_REPLACED.equals(action)) return;
        VoiceGatewayApp app = VoiceGatewayApp.of(context);
        try {
            if (app.isPaired()) app.startGateway();
        } catch (RuntimeException e) {
            app.reportProblem(context.getString(R.string.problem_boot, e.toString()), e);
        }
    }
}
