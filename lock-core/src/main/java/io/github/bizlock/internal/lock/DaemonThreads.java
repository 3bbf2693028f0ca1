package io.github.bizlock.internal.lock;

import java.util.concurrent.ThreadFactory;

/** Makes the lock manager's threads: daemons, so they never keep a JVM alive, named for thread dumps. */
final class DaemonThreads {

    private DaemonThreads() {}

    static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
