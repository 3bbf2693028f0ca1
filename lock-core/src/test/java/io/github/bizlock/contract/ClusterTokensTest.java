package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * On a Galera cluster ({@code BIZLOCK_TEST_DB=galera}) the nodes issue fencing tokens as one server: a lock taken in
 * turns through two nodes whose {@code server_id} differ gets tokens one apart, never the 2^32 jump of a failover to
 * another server (which, at every change of node, would use up the tokens' range in weeks).
 */
@ExtendWith(TestDatabaseExtension.class)
@EnabledIf("onCluster")
class ClusterTokensTest {

    private static final int TURNS = 10;

    static boolean onCluster() {
        return TestDatabases.server().isCluster();
    }

    @Test
    void tokensRiseByOneWhileTheLockMovesBetweenNodesWithDifferentServerIds(TestDatabase database) throws Exception {
        LockFixture.createSchema(database.dataSource());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.nodeJdbcUrls().get(1));
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(4);
        // Nodes often share one server_id; node 2's sessions get another, as a cluster configured so would have.
        config.setConnectionInitSql("SET SESSION server_id = @@global.server_id + 7");
        try (HikariDataSource node2 = new HikariDataSource(config)) {
            List<DataSource> nodes = List.of(database.dataSource(), node2);
            assertThat(serverId(nodes.get(1))).isNotEqualTo(serverId(nodes.get(0)));
            LockKey leaseKey = new LockKey("cluster-tokens", "lease");
            LockKey namedKey = new LockKey("cluster-tokens", "named");
            List<Long> leaseTokens = new ArrayList<>();
            List<Long> namedTokens = new ArrayList<>();
            List<LockManager> managers = List.of(
                    LockFixture.manager(nodes.get(0)).build(),
                    LockFixture.manager(nodes.get(1)).build());
            List<LockDaos> daos = List.of(LockFixture.daos(nodes.get(0)), LockFixture.daos(nodes.get(1)));
            try {
                for (int turn = 0; turn < TURNS; turn++) {
                    // Node 2 may not have applied node 1's release yet: wait for the lock rather than try once.
                    LockHandle handle = managers.get(turn % 2)
                            .tryAcquire(leaseKey, LockMode.LEASE, Duration.ofSeconds(30), Duration.ofSeconds(30))
                            .orElseThrow(() -> new AssertionError("the lock should be free"));
                    leaseTokens.add(handle.fencingToken());
                    handle.unlock();
                    namedTokens.add(daos.get(turn % 2).tokens().issue(namedKey, LockMode.NAMED, 1));
                }
            } finally {
                managers.forEach(LockManager::close);
            }
            for (List<Long> tokens : List.of(leaseTokens, namedTokens)) {
                for (int i = 1; i < tokens.size(); i++) {
                    assertThat(tokens.get(i))
                            .as("tokens issued in turns through node 1 and 2: %s", tokens)
                            .isEqualTo(tokens.get(i - 1) + 1);
                }
            }
        }
    }

    private static long serverId(DataSource node) {
        Long id = new JdbcTemplate(node).queryForObject("SELECT @@server_id", Long.class);
        return id == null ? 0 : id;
    }
}
