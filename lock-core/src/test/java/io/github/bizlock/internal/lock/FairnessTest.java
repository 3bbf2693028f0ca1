package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockTest;
import io.github.bizlock.TurnOrder;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * By default, threads of one process get a contended lock in the order they asked for it: the thread that releases it
 * and asks again, running while the others are parked, never passes them.
 */
@LockTest
class FairnessTest {

    @Test
    void byDefaultALockGoesToTheThreadsInTheOrderTheyAskedForIt(DataSource dataSource) throws Exception {
        try (LockManager manager = LockFixture.manager(dataSource).build()) {
            // Several times: an unfair lock lets the releasing thread take it straight back now and then (usually,
            // since it runs while the others are parked); a fair one never does.
            for (int round = 0; round < 5; round++) {
                assertThat(TurnOrder.afterReleasingAndAskingAgain(
                                LockFixture.template(manager), "fair", "r" + round, 3))
                        .as("round %d", round)
                        .isEqualTo(TurnOrder.queuedFirst(3));
            }
        }
    }

    @Test
    void aSingleAttemptDoesNotPassThreadsThatWait(DataSource dataSource) throws Exception {
        try (LockManager manager = LockFixture.manager(dataSource).build()) {
            for (int round = 0; round < 5; round++) {
                assertThat(TurnOrder.afterReleasingAndTryingOnce(
                                LockFixture.template(manager), "fair-once", "r" + round, 3))
                        .as("round %d: the caller's attempt without waiting, made while 3 threads queue", round)
                        .isEqualTo(TurnOrder.queuedOnly(3));
            }
        }
    }
}
