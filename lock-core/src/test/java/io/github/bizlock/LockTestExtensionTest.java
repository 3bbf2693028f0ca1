package io.github.bizlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@link LockTest}: the tables are there before the first test, a manager built in a test is closed when that test ends
 * (its lock free for the next), and one built in {@code @BeforeAll} lives until the class ends.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LockTestExtensionTest {

    private static final LockKey KEY = new LockKey("fixture", "1");

    private LockManager classWide;
    private LockManager ofFirstTest;

    @BeforeAll
    void setUp(Locks locks) {
        assertThat(locks.daos().schema().missingTables())
                .as("the tables, made before @BeforeAll")
                .isEmpty();
        classWide = locks.manager();
    }

    @Test
    @Order(1)
    void aTestsManagerHoldsItsLockWhileTheTestRuns(Locks locks) throws InterruptedException {
        ofFirstTest = locks.manager(builder -> builder.watchdogLease(Duration.ofSeconds(30)));
        assertThat(ofFirstTest.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null))
                .isPresent();
        assertThat(classWide.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null))
                .as("held by the test's manager")
                .isEmpty();
    }

    @Test
    @Order(2)
    void itIsClosedWhenTheTestEndsAndItsLockFreedWhileTheClassWideOneStaysOpen(Locks locks)
            throws InterruptedException {
        assertThatThrownBy(() -> ofFirstTest.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null))
                .as("the first test's manager, closed")
                .isInstanceOf(LockAcquisitionException.class);
        assertThat(classWide.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null))
                .as("freed by the close, taken by the class-wide manager, still open")
                .isPresent();
        assertThat(locks.dao().find(KEY))
                .hasValueSatisfying(row -> assertThat(row.owner()).isEqualTo(classWide.instanceId()));
    }
}
