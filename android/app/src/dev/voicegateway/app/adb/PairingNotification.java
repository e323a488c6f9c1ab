package dev.voicegateway.app.adb;

import android.app.Notification;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.app.RemoteInput;
import android.content.Context;
import android.content.Intent;
import android.graphics.drawable.Icon;
import android.provider.Settings;
import dev.voicegateway.app.R;
import dev.voicegateway.app.compat.Notifications;
import dev.voicegateway.app.compat.PendingIntents;

/**
 * The self-start's notifications. The pairing code is typed into an inline reply (RemoteInput, API 20;
 * replied in the notification shade from Android 7), because the system's pairing dialog stays on top
 * of every app and closes (ending the pairing service) when the person leaves it; Shizuku's
 * AdbPairingService takes the code the same way. The reply intent carries the pairing port, so a reply
 * that arrives after the app's process was restarted still knows where to pair.
 */
final class PairingNotification {
    static final String CHANNEL = "self_start";
    static final String REPLY_KEY = "pairing_code";
    static final String EXTRA_PORT = "dev.voicegateway.app.adb.PAIRING_PORT";
    private static final int ID = 0x5e1f;

    private PairingNotification() {
    }

    static void channel(Context context) {
        Notifications.channel(context, CHANNEL, context.getString(R.string.self_start_channel),
                context.getString(R.string.self_start_channel_about), true);
    }

    /** Asks for the code (with the reply field once the dialog's port is known), or shows the pairing's progress. */
    static void code(Context context, String text, int port, boolean withReply) {
        Notification.Builder b = base(context, context.getString(R.string.self_start_pair_title), text);
        b.setOngoing(withReply);
        if (withReply) {
            Intent reply = new Intent(context, PairingCodeReceiver.class).putExtra(EXTRA_PORT, port);
            PendingIntent pi = PendingIntent.getBroadcast(context, 1, reply,
                    PendingIntent.FLAG_UPDATE_CURRENT | PendingIntents.mutable());
            RemoteInput input = new RemoteInput.Builder(REPLY_KEY).setLabel(context.getString(R.string.self_start_code_label)).build();
            b.addAction(new Notification.Action.Builder(Icon.createWithResource(context, R.drawable.ic_stat_call),
                    context.getString(R.string.self_start_code_action), pi).addRemoteInput(input).build());
        }
        post(context, b.build());
    }

    /** Without the grant (or on Android 12): one tap opens Developer options, where the switch is. */
    static void turnOn(Context context, String text) {
        Notification.Builder b = base(context, context.getString(R.string.self_start_audio_stopped_title), text);
        b.setContentIntent(developerOptions(context, 2));
        post(context, b.build());
    }

    static void problem(Context context, String text) {
        Notification.Builder b = base(context, context.getString(R.string.self_start_audio_stopped_title), text);
        post(context, b.build());
    }

    static void cancel(Context context) {
        NotificationManager m = (NotificationManager) context.getSystemService(Context.NOTIFICATION_SERVICE);
        if (m != null) m.cancel(ID);
    }

    /** Developer options (Settings.ACTION_APPLICATION_DEVELOPMENT_SETTINGS): no public action opens Wireless debugging itself. */
    static Intent developerOptionsIntent() {
        return new Intent(Settings.ACTION_APPLICATION_DEVELOPMENT_SETTINGS).addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
    }

    private static PendingIntent developerOptions(Context context, int requestCode) {
        return PendingIntent.getActivity(context, requestCode, developerOptionsIntent(),
                PendingIntent.FLAG_UPDATE_CURRENT | PendingIntent.FLAG_IMMUTABLE);
    }

    private static Notification.Builder base(Context context, String title, String text) {
        channel(context);
        return Notifications.builder(context, CHANNEL)
                .setSmallIcon(R.drawable.ic_stat_call)
                .setContentTitle(title)
                .setContentText(text)
                .setStyle(new Notification.BigTextStyle().bigText(text))
                .setOnlyAlertOnce(true)
                .setCategory(Notification.CATEGORY_STATUS);
    }

    private static void post(Context context, Notification n) {
        NotificationManager m = (NotificationManager) context.getSystemService(Context.NOTIFICATION_SERVICE);
        if (m != null) m.notify(ID, n);
    }
}
