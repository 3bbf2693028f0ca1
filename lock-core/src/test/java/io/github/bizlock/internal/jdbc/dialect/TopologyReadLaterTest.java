package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A deployment that could not be read at start and is read later as a multi-writer cluster renders every token
 * statement for the cluster from then on, the token floor's take-over included: a statement rendered at start for the
 * server's own reign would never take the floor over for the cluster's, and every token would then fail.
 */
@LockTest
class TopologyReadLaterTest {

    @Test
    void tokensAreIssuedForTheClusterOnceItsTopologyIsRead(DataSource dataSource) throws SQLException {
        Dialect dialect;
        try (Connection connection = dataSource.getConnection()) {
            dialect = Dialects.forServer(
                    connection.getMetaData().getDatabaseProductName(),
                    connection.getMetaData().getDatabaseProductVersion(),
                    "biz_lock",
                    ClusterTopology.unknown("SHOW GLOBAL VARIABLES refused (test)"));
        }
        dialect.readAgainWith(() -> new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON (test)", false));
        LockDaos dao = LockDaos.of(dataSource, new DataSourceTransactionManager(dataSource), dialect);

        OptionalLong token = dao.leases()
                .tryAcquire(
                        new LockKey("read-later", "1"),
                        "owner-1",
                        Duration.ofSeconds(30),
                        1,
                        System.nanoTime() + Duration.ofSeconds(5).toNanos());

        assertThat(dialect.topology().kind()).isEqualTo(ClusterTopology.Kind.GALERA);
        assertThat(token).as("a token issued for the cluster's reign").isPresent();
        assertThat(dao.tokens().issue(new LockKey("read-later-row", "1"), LockMode.ROW, 1))
                .as("ROW and NAMED tokens too")
                .isPositive();
    }
}
