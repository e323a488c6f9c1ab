package dev.voicegateway.app.service;

import android.app.Notification;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.app.Service;
import android.content.Context;
import android.content.Intent;
import android.os.IBinder;
import dev.voicegateway.app.R;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.app.compat.Foreground;
import dev.voicegateway.app.compat.Notifications;
import dev.voicegateway.app.ui.StatusActivity;
import dev.voicegateway.app.ui.StatusTexts;
import dev.voicegateway.core.PhoneStatus;

/**
 * Keeps the process, and so the phone socket, alive while the phone is paired: a foreground service
 * of type connectedDevice (the gateway is the networked device that controls this phone; Android 14
 * accepts that type with FOREGROUND_SERVICE_CONNECTED_DEVICE and CHANGE_NETWORK_STATE, both in the
 * manifest). Its ongoing notification shows the connection. It stops itself when the phone is unpaired.
 */
public final class GatewayService extends Service {
    static final int NOTIFICATION_ID = 1;
    /** Names this service's start problems, so a later successful start takes them back. */
    private static final String PROBLEMS = "gateway-service";

    private VoiceGatewayApp app;
    private String shownText;
    private final VoiceGatewayApp.Listener listener = new VoiceGatewayApp.Listener() {
        @Override
        public void onChanged() {
            refresh();
        }
    };

    /**
     * Starts (or re-starts) the service. Android 12+ refuses a foreground-service start from the
     * background unless the app is exempt (just booted, updated, or left out of battery
     * optimisation); that refusal becomes a message on the status screen, not a crash.
     */
    public static void start(Context context) {
        try {
            Foreground.startService(context, new Intent(context, GatewayService.class));
        } catch (IllegalStateException | SecurityException e) {
            // IllegalStateException: ForegroundServiceStartNotAllowedException (API 31) is one.
            VoiceGatewayApp.of(context).reportProblem(PROBLEMS, context.getString(R.string.problem_background_start, e.getMessage()), e);
        }
    }

    @Override
    public void onCreate() {
        super.onCreate();
        app = VoiceGatewayApp.of(this);
        app.addListener(listener);
    }

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        // Every start asked with startForegroundService must be answered with startForeground.
        if (!goForeground()) {
            stopSelf();
            return START_NOT_STICKY;
        }
        if (!app.isPaired()) {
            stop();
            return START_NOT_STICKY;
        }
        // The core itself is started by VoiceGatewayApp.startGateway (also when Android restarts
        // this sticky service: the new process's Application starts it); this service only keeps
        // the process in the foreground.
        return START_STICKY;
    }

    @Override
    public void onDestroy() {
        app.removeListener(listener);
        super.onDestroy();
    }

    @Override
    public IBinder onBind(Intent intent) {
        return null;
    }

    private boolean goForeground() {
        try {
            shownText = text(app.client().status());
            Foreground.start(this, NOTIFICATION_ID, notification(shownText));
            app.problemSolved(PROBLEMS);
            return true;
        } catch (RuntimeException e) {
            // SecurityException (a type whose permissions are missing) or
            // ForegroundServiceStartNotAllowedException (started from the background).
            app.reportProblem(PROBLEMS, getString(R.string.problem_foreground, e.getMessage()), e);
            return false;
        }
    }

    private void refresh() {
        PhoneStatus status = app.client().status();
        if (status.link == PhoneStatus.Link.UNPAIRED) {
            stop();
            return;
        }
        String text = text(status);
        if (text.equals(shownText)) return;
        shownText = text;
        NotificationManager manager = getSystemService(NotificationManager.class);
        try {
            if (manager != null) manager.notify(NOTIFICATION_ID, notification(text));
        } catch (RuntimeException e) {
            app.reportProblem(getString(R.string.problem_notification, e.toString()), e);
        }
    }

    private String text(PhoneStatus status) {
        return StatusTexts.link(this, status, false) + (status.gateway != null ? " · " + status.gateway : "");
    }

    @SuppressWarnings("deprecation")
    private void stop() {
        stopForeground(true);
        stopSelf();
    }

    private Notification notification(String text) {
        PendingIntent open = PendingIntent.getActivity(this, 0, new Intent(this, StatusActivity.class),
                PendingIntent.FLAG_UPDATE_CURRENT | PendingIntent.FLAG_IMMUTABLE);
        return Notifications.builder(this, VoiceGatewayApp.CHANNEL_CONNECTION)
                .setSmallIcon(R.drawable.ic_stat_call)
                .setContentTitle(getString(R.string.app_name))
                .setContentText(text)
                .setCategory(Notification.CATEGORY_SERVICE)
                .setOngoing(true)
                .setOnlyAlertOnce(true)
                .setShowWhen(false)
                .setContentIntent(open)
                .build();
    }
}
