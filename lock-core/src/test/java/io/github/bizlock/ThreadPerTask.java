package io.github.bizlock;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts a new thread for each task. Tests hand it to {@code CompletableFuture.supplyAsync} and {@code runAsync}
 * because their tasks wait for one another: on the common pool they would run at once or one after the other
 * depending on the JDK and the CPUs (JDK 25 on 2 CPUs gives it a single worker, and a test whose two waiters must
 * wait together hangs). {@code CommonPoolTest} keeps every test off the common pool.
 */
public final class ThreadPerTask implements Executor {

    /** The one instance; it holds no state but a counter for thread names. */
    public static final ThreadPerTask EXECUTOR = new ThreadPerTask();

    private final AtomicInteger started = new AtomicInteger();

    private ThreadPerTask() {}

    @Override
    public void execute(Runnable task) {
        Thread thread = new Thread(task, "test-task-" + started.incrementAndGet());
        // A task left hanging by a failed test must not keep the test JVM alive.
        thread.setDaemon(true);
        thread.start();
    }
}
