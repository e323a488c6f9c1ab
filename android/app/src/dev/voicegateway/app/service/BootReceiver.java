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
 *
 * <p>After a boot the audio helper is gone; a phone paired with its own Wireless debugging starts it
 * again (SelfStarter: turning Wireless debugging on itself with WRITE_SECURE_SETTINGS on Android 13+,
 * else a notification). No LOCKED_BOOT_COMPLETED: it reaches only direct-boot-aware components
 * (Intent.ACTION_LOCKED_BOOT_COMPLETED's documentation), and the app keeps its ADB key, like the
 * gateway's token, in credential-protected storage, readable only after the first unlock — a key that
 * runs anything as the shell is not moved to device-protected storage to save one unlock.
 */
public final class BootReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        String action = intent == null ? null : intent.getAction();
        if (!Intent.ACTION_BOOT_COMPLETED.equals(action) && !Intent.ACTION_MY_PACKAGE_REPLACED.equals(action)) return;
        VoiceGatewayApp app = VoiceGatewayApp.of(context);
        try {
            if (app.isPaired()) app.startGateway();
            if (Intent.ACTION_BOOT_COMPLETED.equals(action) && app.selfStarter().paired()) app.selfStarter().startHelper();
        } catch (RuntimeException e) {
            app.reportProblem(context.getString(R.string.problem_boot, e.toString()), e);
        }
    }
}
