package dev.voicegateway.app.compat;

import android.app.Notification;
import android.app.Service;
import android.content.Context;
import android.content.Intent;
import android.content.pm.ServiceInfo;
import android.os.Build;

/** Starting the gateway service in the foreground, with its type where Android asks for one. */
public final class Foreground {
    private Foreground() {
    }

    /** Context.startForegroundService (26): the service must then call startForeground within seconds. */
    public static void startService(Context context, Intent intent) {
        if (Build.VERSION.SDK_INT >= 26) context.startForegroundService(intent);
        else context.startService(intent);
    }

    /**
     * Service.startForeground with type connectedDevice on 29+ (the gateway is the networked device
     * that controls this phone; the manifest declares the type and, for Android 14, its permissions).
     */
    public static void start(Service service, int id, Notification notification) {
        if (Build.VERSION.SDK_INT >= 29) {
            service.startForeground(id, notification, ServiceInfo.FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE);
        } else {
            service.startForeground(id, notification);
        }
    }
}
