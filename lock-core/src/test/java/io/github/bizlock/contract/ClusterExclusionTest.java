package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * LEASE exclusion on a multi-writer cluster (BIZLOCK_TEST_DB=galera): three JVMs, each writing through a different
 * node, run the exclusion fuzz on the same keys. Galera certifies the lease row's conditional update cluster-wide, so
 * the holders must never overlap, no counter update may be lost, tokens must rise in the order the lock was held, and
 * no acquisition may fail (a certification failure is "not acquired yet", never an error to the caller).
 */
@ExtendWith(TestDatabaseExtension.class)
@EnabledIf("onCluster")
// Every wait for a child is bounded by the harness; this bounds the whole run, this JVM's own share included.
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClusterExclusionTest {

    private static final int THREADS = 8;
    private static final int ITERATIONS = 150;
    private static final int KEYS = 4;
    private static final long MAX_SLEEP_NANOS = 200_000;

    static boolean onCluster() {
        return TestDatabases.server().isCluster();
    }

    @Test
    void leaseHoldersOnThreeNodesNeverOverlapAndTokensRiseClusterWide(TestDatabase database) throws Exception {
        List<String> nodes = database.nodeJdbcUrls();
        assertThat(nodes).hasSize(3);
        LockFixture.createSchema(database.dataSource());
        FuzzWorkload.createTables(database.dataSource(), KEYS);
        String lockName = "cluster-exclusion";
        List<ChildJvm> children = new ArrayList<>();
        try (LockManager manager = ContractManagers.fuzzBuilder(
                        LockMode.LEASE, database.dataSource(), InstanceId.generate())
                .build()) {
            for (int node = 2; node <= 3; node++) {
                ChildJvm child = LockWorker.start(
                        database,
                        nodes.get(node - 1),
                        List.of(),
                        "fuzz",
                        LockMode.LEASE.name(),
                        lockName,
                        String.valueOf(THREADS),
                        String.valueOf(ITERATIONS),
                        String.valueOf(KEYS),
                        String.valueOf(MAX_SLEEP_NANOS),
                        "node" + node);
                children.add(child);
            }
            for (ChildJvm child : children) {
                child.await("READY", Duration.ofSeconds(60));
            }
            children.forEach(child -> child.send("GO"));
            long started = System.nanoTime();
            FuzzWorkload.Result mine = FuzzWorkload.run(
                    manager,
                    LockMode.LEASE,
                    database.dataSource(),
                    "node1",
                    lockName,
                    THREADS,
                    ITERATIONS,
                    KEYS,
                    MAX_SLEEP_NANOS);
            List<FuzzWorkload.Entry> log = new ArrayList<>(mine.log());
            int overlaps = mine.overlaps();
            int failures = mine.failures();
            for (ChildJvm child : children) {
                String done = null;
                for (String line : child.until("DONE", Duration.ofSeconds(300))) {
                    if (line.startsWith("LOG ")) {
                        log.add(FuzzWorkload.Entry.fromLine(line));
                    } else if (line.startsWith("DONE ")) {
                        done = line;
                    }
                }
                assertThat(child.waitForExit(Duration.ofSeconds(10)))
                        .as("child exit code; output:\n%s", child.output())
                        .isZero();
                assertThat(done)
                        .as("child summary; output:\n%s", child.output())
                        .isNotNull();
                overlaps += Integer.parseInt(done.split(" ")[1]);
                failures += Integer.parseInt(done.split(" ")[2]);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            FuzzWorkload.Verdict verdict = FuzzWorkload.verify(database.dataSource(), log);
            System.out.printf(
                    "cluster exclusion (LEASE, 3 JVMs on 3 nodes): %d sections in %d ms (%.0f/s), %d hand-offs between"
                            + " JVMs, counters %s%n",
                    verdict.sections(),
                    millis,
                    verdict.sections() * 1000.0 / Math.max(1, millis),
                    verdict.crossProcessHandOffs(),
                    verdict.finalCounters());
            assertThat(failures).as("acquisitions that failed or threw").isZero();
            assertThat(overlaps).as("overlapping holders").isZero();
            assertThat(verdict.problems()).isEmpty();
            assertThat(verdict.lostUpdates()).isZero();
            assertThat(verdict.tokenInversions()).isZero();
            assertThat(verdict.sections()).isEqualTo(3 * THREADS * ITERATIONS);
            assertThat(verdict.crossProcessHandOffs())
                    .as("hand-offs between JVMs on different nodes")
                    .isGreaterThan(100);
        } finally {
            children.forEach(ChildJvm::close);
        }
    }
}
