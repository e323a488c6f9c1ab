package dev.voicegateway.core;

import java.util.ArrayList;
import java.util.List;

/** A clock for tests: time moves only with {@link #advance}; tasks run on the test's thread. */
public final class ManualClock implements Clock {
    private static final class Task {
        final long due;
        final long order;
        final Runnable run;
        boolean cancelled;

        Task(long due, long order, Runnable run) {
            this.due = due;
            this.order = order;
            this.run = run;
        }
    }

    private long now = 1700000000000L;
    private long elapsed;
    private long order;
    private final List<Task> tasks = new ArrayList<Task>();

    @Override
    public long now() {
        return now;
    }

    @Override
    public long elapsed() {
        return elapsed;
    }

    @Override
    public Timer schedule(Runnable task, long delayMs) {
        final Task t = new Task(elapsed + Math.max(0, delayMs), order++, task);
        tasks.add(t);
        return new Timer() {
            @Override
            public void cancel() {
                t.cancelled = true;
            }
        };
    }

    @Override
    public void execute(Runnable task) {
        schedule(task, 0);
    }

    /** Runs what is due now (also tasks those tasks queue for now). */
    public void runPending() {
        advance(0);
    }

    /** Moves time forward, running every task that falls due on the way, in time order. */
    public void advance(long ms) {
        long target = elapsed + ms;
        while (true) {
            Task next = null;
            for (Task t : tasks) {
                if (t.cancelled || t.due > target) continue;
                if (next == null || t.due < next.due || (t.due == next.due && t.order < next.order)) next = t;
            }
            if (next == null) break;
            tasks.remove(next);
            now += next.due - elapsed;
            elapsed = next.due;
            next.run.run();
        }
        now += target - elapsed;
        elapsed = target;
        List<Task> live = new ArrayList<Task>();
        for (Task t : tasks) if (!t.cancelled) live.add(t);
        tasks.retainAll(live);
    }

    /**
     * Deep sleep: the wall clock moves on, the monotonic clock and the timers on it do not (as a
     * ScheduledThreadPoolExecutor on System.nanoTime behaves while the CPU is suspended).
     */
    public void sleep(long ms) {
        now += ms;
    }

    /** Tasks still waiting (not cancelled). */
    public int pending() {
        int n = 0;
        for (Task t : tasks) if (!t.cancelled) n++;
        return n;
    }
}
