package dev.voicegateway.app.telecom;

import android.app.Notification;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.content.Context;
import android.telecom.Call;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.app.compat.Notifications;
import dev.voicegateway.app.ui.CallTexts;
import dev.voicegateway.app.ui.InCallActivity;
import java.util.List;

/**
 * The call notification a default phone app must post: for a ringing call a full-screen intent
 * (Android shows the in-call screen over the lock screen, or a heads-up with Answer and Decline
 * while the phone is in use), and for a call in progress an ongoing notification that leads back
 * to the in-call screen. Main thread only.
 */
final class CallNotifier implements TelecomTelephony.CallsListener {
    static final int NOTIFICATION_ID = 2;

    private final Context context;
    private final TelecomTelephony telephony;
    /** The ringing call whose full-screen notification is up: posting it again would alert again. */
    private String ringingShown;

    CallNotifier(Context context, TelecomTelephony telephony) {
        this.context = context;
        this.telephony = telephony;
    }

    @Override
    public void onCallsChanged() {
        try {
            update();
        } catch (RuntimeException e) {
            VoiceGatewayApp.of(context).reportProblem("The call notification could not be shown: " + e, e);
        }
    }

    void cancel() {
        ringingShown = null;
        NotificationManager manager = context.getSystemService(NotificationManager.class);
        if (manager != null) manager.cancel(NOTIFICATION_ID);
    }

    private void update() {
        List<Call> calls = telephony.platformCalls();
        Call ringing = null;
        Call current = null;
        for (Call c : calls) {
            int state = c.getState();
            if (state == Call.STATE_RINGING && telephony.isIncoming(c)) {
                if (ringing == null) ringing = c;
            } else if (state != Call.STATE_DISCONNECTED && current == null) {
                current = c;
            }
        }
        if (ringing != null) {
            String id = telephony.idOf(ringing);
            if (id != null && id.equals(ringingShown)) return;
            ringingShown = id;
            post(incoming(ringing, id));
        } else {
            ringingShown = null;
            if (current != null) post(ongoing(current));
            else cancel();
        }
    }

    @SuppressWarnings("deprecation")
    private Notification incoming(Call call, String id) {
        PendingIntent show = activity(1, InCallActivity.intent(context, null, id));
        return Notifications.builder(context, VoiceGatewayApp.CHANNEL_INCOMING)
                .setSmallIcon(R.drawable.ic_stat_call)
                .setContentTitle(context.getString(R.string.incoming_call))
                .setContentText(CallTexts.number(context, call))
                .setCategory(Notification.CATEGORY_CALL)
                .setPriority(Notification.PRIORITY_MAX)
                .setVisibility(Notification.VISIBILITY_PUBLIC)
                .setOngoing(true)
                .setContentIntent(show)
                .setFullScreenIntent(show, true)
                .addAction(0, context.getString(R.string.decline), activity(2, InCallActivity.intent(context, InCallActivity.ACTION_DECLINE, id)))
                .addAction(0, context.getString(R.string.answer), activity(3, InCallActivity.intent(context, InCallActivity.ACTION_ANSWER, id)))
                .build();
    }

    private Notification ongoing(Call call) {
        return Notifications.builder(context, VoiceGatewayApp.CHANNEL_CALLS)
                .setSmallIcon(R.drawable.ic_stat_call)
                .setContentTitle(CallTexts.state(context, call.getState()))
                .setContentText(CallTexts.number(context, call))
                .setCategory(Notification.CATEGORY_CALL)
                .setVisibility(Notification.VISIBILITY_PUBLIC)
                .setOngoing(true)
                .setOnlyAlertOnce(true)
                .setContentIntent(activity(1, InCallActivity.intent(context, null, telephony.idOf(call))))
                .build();
    }

    private PendingIntent activity(int requestCode, android.content.Intent intent) {
        return PendingIntent.getActivity(context, requestCode, intent, PendingIntent.FLAG_UPDATE_CURRENT | PendingIntent.FLAG_IMMUTABLE);
    }

    private void post(Notification notification) {
        NotificationManager manager = context.getSystemService(NotificationManager.class);
        if (manager != null) manager.notify(NOTIFICATION_ID, notification);
    }
}
