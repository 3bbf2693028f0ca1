package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.TurnOrder;
import io.github.bizlock.test.TestDatabaseExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code fair(true)}: threads of one process get a contended lock in the order they asked for it. */
@ExtendWith(TestDatabaseExtension.class)
class FairnessTest {

    @Test
    void aFairLockGoesToTheThreadsInTheOrderTheyAskedForIt(DataSource dataSource) throws Exception {
        LockFixture.createSchema(dataSource);
        try (LockManager manager = LockFixture.manager(dataSource).fair(true).build()) {
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
}
