package io.github.bizlock.benchmarks;

import java.time.Duration;

/** One lock client of a subject (one application instance), used by one or several threads. */
interface Node extends AutoCloseable {

    /** How long any lock call waits before the benchmark gives up. */
    Duration WAIT = Duration.ofSeconds(30);

    /** Acquires the lock {@code key}, waiting up to {@link #WAIT}. */
    Held lock(String key) throws Exception;

    @Override
    void close() throws Exception;
}
