package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Issue 30 item 1: users set {@code bizlock.instance-id} to a name their replicas share (the application's name, a
 * service name). Two processes with one configured id must still be two owners: an acquisition retried after a dropped
 * connection takes back only its own possibly committed row, never a live lease of the other replica.
 */
@LockTest
class SharedInstanceIdTest {

    private static final String SHARED_ID = "billing-service";

    @Test
    void aReplicaWhoseConnectionDroppedDoesNotTakeTheLiveLeaseOfAnotherWithTheSameConfiguredId(DataSource dataSource)
            throws Exception {
        DroppingDataSource network = new DroppingDataSource(dataSource);
        try (LockService a =
                        LockService.builder(dataSource).instanceId(SHARED_ID).build();
                LockService b =
                        LockService.builder(network).instanceId(SHARED_ID).build()) {
            b.template().acquire("shared-id", "warm-up").unlock(); // binds the name: the drop hits the acquisition
            try (LockHandle held = a.template().acquire("shared-id", "k")) {
                network.dropNextConnection();

                Optional<LockHandle> stolen = b.template()
                        .tryAcquire("shared-id", "k", LockOptions.defaults().waitTime(Duration.ofSeconds(2)));

                stolen.ifPresent(LockHandle::unlock);
                assertThat(network.dropped())
                        .as("B's first attempt lost its connection")
                        .isTrue();
                assertThat(stolen)
                        .as("B, retrying after a dropped connection, must not take A's live lease")
                        .isEmpty();
                assertThat(held.isHeld()).isTrue();
            }
        }
    }

    @Test
    void twoServicesWithOneConfiguredIdAreTwoOwnersThatBothShowTheConfiguredId(DataSource dataSource) {
        try (LockService a =
                        LockService.builder(dataSource).instanceId(SHARED_ID).build();
                LockService b =
                        LockService.builder(dataSource).instanceId(SHARED_ID).build()) {
            assertThat(a.template().instanceId()).startsWith(SHARED_ID + ":");
            assertThat(b.template().instanceId()).startsWith(SHARED_ID + ":");
            assertThat(a.template().instanceId()).isNotEqualTo(b.template().instanceId());
        }
    }

    /** A pool whose next connection, once armed, fails as a dropped network connection does (SQL state 08S01). */
    private static final class DroppingDataSource extends DelegatingDataSource {

        private final AtomicBoolean armed = new AtomicBoolean();
        private final AtomicBoolean dropped = new AtomicBoolean();

        DroppingDataSource(DataSource target) {
            super(target);
        }

        void dropNextConnection() {
            armed.set(true);
        }

        boolean dropped() {
            return dropped.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (armed.compareAndSet(true, false)) {
                dropped.set(true);
                throw new SQLException("Communications link failure (test)", "08S01");
            }
            return super.getConnection();
        }
    }
}
