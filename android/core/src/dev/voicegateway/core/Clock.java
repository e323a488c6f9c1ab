package dev.voicegateway.core;

/**
 * Time and timers of the core. Every state change of the core runs on the clock's one thread, so
 * the core needs no locks: socket and telephony callbacks are handed to {@link #execute}.
 */
public interface Clock {
    /** Wall-clock time in Unix milliseconds (occurredAt, reportedAt). */
    long now();

    /** Monotonic milliseconds, for timeouts and pacing. */
    long elapsed();

    /** Runs the task on the clock's thread after at least {@code delayMs}. */
    Timer schedule(Runnable task, long delayMs);

    /** Runs the task on the clock's thread as soon as possible, in submission order. */
    void execute(Runnable task);

    /** A scheduled task that may be cancelled; cancelling twice, or after it ran, does nothing. */
    interface Timer {
        void cancel();
    }
}
