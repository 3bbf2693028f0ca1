package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The affected-rows trap: with Connector/J's default (found rows) an upsert that changed nothing reports 1, as an
 * insert does, so an engine that reads "1 row" as "acquired" grants a held lock. Acquisition must read the same with
 * and without {@code useAffectedRows=true}, for new rows, taken-over rows and held rows.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseAffectedRowsTest {

    @BeforeAll
    static void createSchema(TestDatabase database) {
        LockFixture.createSchema(database.dataSource());
    }

    @ParameterizedTest(name = "useAffectedRows={0}")
    @ValueSource(booleans = {false, true})
    void heldLockIsNeverMisreadAsAcquired(boolean useAffectedRows, TestDatabase database) throws Exception {
        LockKey key = new LockKey("affected-rows", String.valueOf(useAffectedRows));
        try (HikariDataSource flagged =
                        LeaseTestSupport.dataSource(database, "useAffectedRows=" + useAffectedRows, config -> {});
                LockManager plain = LockFixture.manager(database.dataSource()).build();
                LockManager contender = LockFixture.manager(flagged).build()) {
            // Created by the flagged side (the INSERT path), then contended by the plain side, and the other way round.
            LockHandle first = contender
                    .tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            for (int i = 0; i < 50; i++) {
                assertThat(plain.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                        .isEmpty();
            }
            first.unlock();
            LockHandle second =
                    plain.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
            for (int i = 0; i < 50; i++) {
                assertThat(contender.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                        .as("attempt %d while held elsewhere", i)
                        .isEmpty();
            }
            // A lease that ended is taken over (an UPDATE that changes the row) and read as acquired.
            LeaseTestSupport.expire(database.dataSource(), key);
            LockHandle third = contender
                    .tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            assertThat(third.fencingToken()).isEqualTo(second.fencingToken() + 1);
            assertThatThrownBy(second::unlock).isInstanceOf(LockLostException.class);
            for (int i = 0; i < 50; i++) {
                assertThat(plain.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                        .isEmpty();
            }
            third.unlock();
            // A free row is taken again by its last owner with a new token.
            try (LockHandle fourth = contender
                    .tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()) {
                assertThat(fourth.fencingToken()).isEqualTo(third.fencingToken() + 1);
            }
        }
    }
}
