package dev.voicegateway.app.service;

import android.app.AlarmManager;
import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.os.PowerManager;
import android.os.SystemClock;
import dev.voicegateway.app.VoiceGatewayApp;
import dev.voicegateway.core.Wakefulness;

/**
 * The phone socket's retries while the screen is off (docs/android.md, "The phone socket"). The
 * core's timers stop in deep sleep, so the link asks for a partial wake lock, always with a
 * timeout (acquire(long): PowerManager releases it by itself when the time is up, so a lost
 * release cannot drain the battery), while it connects and soon after a loss; and for an alarm at
 * the retry time that fires even in Doze: AlarmManager.setAndAllowWhileIdle (API 23) on
 * ELAPSED_REALTIME_WAKEUP, which counts the time asleep. In Doze AlarmManagerService lets such an
 * alarm fire at most about every 9 minutes per app (AlarmManagerService.Constants.DEFAULT_ALLOW_WHILE_IDLE_LONG_TIME, 9 min; later versions count a quota instead),
 * which is the backstop's pace; the receiver holds the CPU awake for as long as onReceive runs, and
 * the wake lock taken by the attempt carries it from there.
 */
public final class KeepAwake implements Wakefulness {
    private final Context context;
    private final PowerManager.WakeLock lock;

    public KeepAwake(Context context) {
        this.context = context.getApplicationContext();
        PowerManager power = (PowerManager) this.context.getSystemService(Context.POWER_SERVICE);
        lock = power == null ? null : power.newWakeLock(PowerManager.PARTIAL_WAKE_LOCK, "VoiceGateway:reconnect");
        // Not counted: each stayAwake replaces the previous hold, and one release ends it.
        if (lock != null) lock.setReferenceCounted(false);
    }

    @Override
    public synchronized void stayAwake(long timeoutMs) {
        if (lock != null) lock.acquire(Math.max(1000, timeoutMs));
    }

    @Override
    public synchronized void maySleep() {
        if (lock != null && lock.isHeld()) lock.release();
    }

    @Override
    public void alarmIn(long delayMs) {
        AlarmManager alarms = (AlarmManager) context.getSystemService(Context.ALARM_SERVICE);
        if (alarms == null) return;
        alarms.setAndAllowWhileIdle(AlarmManager.ELAPSED_REALTIME_WAKEUP, SystemClock.elapsedRealtime() + Math.max(0, delayMs), pending());
    }

    @Override
    public void cancelAlarm() {
        AlarmManager alarms = (AlarmManager) context.getSystemService(Context.ALARM_SERVICE);
        if (alarms != null) alarms.cancel(pending());
    }

    private PendingIntent pending() {
        Intent intent = new Intent(context, ReconnectAlarm.class);
        // The same intent each time, so a new alarm replaces the old one.
        return PendingIntent.getBroadcast(context, 0, intent, PendingIntent.FLAG_UPDATE_CURRENT | PendingIntent.FLAG_IMMUTABLE);
    }
}
