package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Instances that start at once on different nodes of a Galera cluster all start (issue 19: with Flyway's node-local
 * lock alone, one in three tries failed with 1213). Three JVMs, one per node, start the starter's context together
 * on a fresh database, again and again; every start must succeed.
 */
@ExtendWith(TestDatabaseExtension.class)
@EnabledIf("onCluster")
// Every wait for a child is bounded by the harness; this bounds the whole run.
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClusterStartupTest {

    private static final int ROUNDS = 10;

    static boolean onCluster() {
        return TestDatabases.server().isCluster();
    }

    @Test
    void threeInstancesStartingAtOnceOnThreeNodesAllStart(TestDatabase database) throws Exception {
        List<ChildJvm> workers = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<String> databases = new ArrayList<>();
        try {
            for (String nodeUrl : database.nodeJdbcUrls()) {
                workers.add(ClusterStartupWorker.start(nodeUrl, database.username(), database.password()));
            }
            for (ChildJvm worker : workers) {
                worker.await("READY", Duration.ofSeconds(60));
            }
            List<Long> slowestPerRound = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                String name = "bizlock_start_"
                        + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
                execute(database, "CREATE DATABASE " + name);
                databases.add(name);
                for (ChildJvm worker : workers) {
                    worker.send("GO " + name);
                }
                long slowest = 0;
                for (int node = 0; node < workers.size(); node++) {
                    String result = workers.get(node).next(Duration.ofMinutes(2));
                    if (result.startsWith("STARTED ")) {
                        slowest = Math.max(slowest, Long.parseLong(result.substring(8)));
                    } else {
                        failures.add("round " + round + ", node " + (node + 1) + ": " + result);
                    }
                }
                slowestPerRound.add(slowest);
            }
            System.out.printf(
                    "cluster start-up: %d rounds x %d instances on %d nodes, %d failures; slowest start of each round"
                            + " (ms): %s%n",
                    ROUNDS, workers.size(), workers.size(), failures.size(), slowestPerRound);
            assertThat(failures).isEmpty();
        } finally {
            workers.forEach(worker -> worker.close(Duration.ofSeconds(10)));
            for (String name : databases) {
                execute(database, "DROP DATABASE IF EXISTS " + name);
            }
        }
    }

    private static void execute(TestDatabase database, String sql) throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.username(), database.password());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
