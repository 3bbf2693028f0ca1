package io.github.bizlock.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.core.LockKey;
import io.github.bizlock.core.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * LEASE writes are single statements in autocommit, outside the caller's transaction. A pool that hands out connections
 * with autocommit off (a common setting with JPA) must not leave them uncommitted: the connection closes here after
 * each use, and the server rolls back what it did not commit.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseAutocommitTest {

    @Test
    void writesCommitWhenThePoolHandsOutConnectionsWithoutAutocommit(DataSource dataSource) throws Exception {
        LockFixture.createSchema(dataSource);
        DataSource manualCommit = new DelegatingDataSource(dataSource) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = super.getConnection();
                connection.setAutoCommit(false);
                return connection;
            }
        };
        LockKey key = new LockKey("autocommit", "1");
        try (LockManager holder = LockFixture.manager(manualCommit).build();
                LockManager other = LockFixture.manager(dataSource).build()) {
            for (int i = 0; i < 2; i++) { // the first creates the row, the second updates it
                LockHandle handle = holder.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow();
                assertThat(other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                        .as("the acquisition committed")
                        .isEmpty();
                handle.unlock();
                other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow(() -> new AssertionError("the release did not commit"))
                        .unlock();
            }
        }
    }
}
