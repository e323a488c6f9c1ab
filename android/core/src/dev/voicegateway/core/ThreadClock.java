package dev.voicegateway.core;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The real clock: one daemon thread runs every task of the core, in order. */
public final class ThreadClock implements Clock {
    private final ScheduledThreadPoolExecutor executor;
    private final Log log;

    public ThreadClock(final String threadName, Log log) {
        this.log = log;
        this.executor = new ScheduledThreadPoolExecutor(1, new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
            }
        });
        // Cancelled timers (reconnects, ack deadlines) must not pile up in the queue.
        executor.setRemoveOnCancelPolicy(true);
        // After shutdown nothing more runs: a stopped core must not reconnect from an old timer.
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public long now() {
        return System.currentTimeMillis();
    }

    @Override
    public long elapsed() {
        return System.nanoTime() / 1000000L;
    }

    @Override
    public Timer schedule(Runnable task, long delayMs) {
        final ScheduledFuture<?> future = executor.schedule(guarded(task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return new Timer() {
            @Override
            public void cancel() {
                future.cancel(false);
            }
        };
    }

    @Override
    public void execute(Runnable task) {
        if (!executor.isShutdown()) executor.execute(guarded(task));
    }

    /** Stops the thread after the tasks already submitted. */
    public void shutdown() {
        executor.shutdown();
    }

    private Runnable guarded(final Runnable task) {
        return new Runnable() {
            @Override
            public void run() {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // One failing task must not stop the thread that runs every other one.
                    log.log(Log.ERROR, "core task failed", e);
                }
            }
        };
    }
}
