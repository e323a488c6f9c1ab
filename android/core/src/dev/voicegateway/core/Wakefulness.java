package dev.voicegateway.core;

/**
 * What keeps the phone socket's retries going while the phone sleeps. The core's timers run on a
 * clock that stops in deep sleep (ThreadClock: a ScheduledThreadPoolExecutor waits on
 * System.nanoTime, CLOCK_MONOTONIC, which does not advance while the CPU is suspended), so a retry
 * due in 30 s may come hours later. The app answers with a partial wake lock that times out and an
 * alarm that wakes the phone even in Doze (docs/android.md, "The phone socket").
 */
public interface Wakefulness {
    /** Keep the CPU awake for at most {@code timeoutMs} from now (replaces an earlier hold). */
    void stayAwake(long timeoutMs);

    /** The CPU may sleep again (the socket is up, or the link stopped). */
    void maySleep();

    /**
     * Wake the phone about {@code delayMs} from now, even in Doze, and then call
     * {@link PhoneClient#alarm()} (replaces an earlier alarm).
     */
    void alarmIn(long delayMs);

    /** No alarm is needed any more. */
    void cancelAlarm();

    /** For hosts where time does not stop (the JVM phone, tests). */
    Wakefulness NONE = new Wakefulness() {
        @Override
        public void stayAwake(long timeoutMs) {
        }

        @Override
        public void maySleep() {
        }

        @Override
        public void alarmIn(long delayMs) {
        }

        @Override
        public void cancelAlarm() {
        }
    };
}
