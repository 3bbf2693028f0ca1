package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The lock manager's threads never keep a JVM alive, and are named for thread dumps. */
class DaemonThreadsTest {

    @Test
    void threadsAreNamedDaemons() {
        Runnable work = () -> {};
        Thread thread = DaemonThreads.named("bizlock-test").newThread(work);
        assertThat(thread.getName()).isEqualTo("bizlock-test");
        assertThat(thread.isDaemon()).isTrue();
    }
}
