package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.ClusterTopology;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * One lock name, one mode: a name is bound to the mode of its first acquisition, for every instance on the database,
 * and a call that asks for another mode is refused, since locks of different modes would not exclude each other.
 * Each test uses names of its own; the database is shared by the class.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModeBindingTest {

    private DataSource dataSource;
    private JdbcTemplate jdbc;
    private final List<LockManager> managers = new ArrayList<>();

    @BeforeAll
    void createSchema(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
        managers.clear();
    }

    /** An application instance: a manager with every mode's engine and an instance id of its own. */
    private LockManager instance() {
        LockManager manager = LockFixture.managerOfEveryMode(dataSource).build();
        managers.add(manager);
        return manager;
    }

    @Test
    void aLeaseHoldRefusesRowAndNamedInTheSameProcess() throws Exception {
        LockManager app = instance();
        LockKey stock = new LockKey("stock", "1");
        try (LockHandle lease = acquire(app, stock, LockMode.LEASE)) {
            for (LockMode other : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                assertThatThrownBy(() -> app.tryAcquire(stock, other, Duration.ZERO, null))
                        .as("%s while LEASE holds it", other)
                        .isInstanceOfSatisfying(LockModeConflictException.class, ex -> {
                            assertThat(ex.lockName()).isEqualTo("stock");
                            assertThat(ex.boundMode()).isEqualTo(LockMode.LEASE);
                            assertThat(ex.requestedMode()).isEqualTo(other);
                        })
                        .hasMessageContaining("'stock' is bound to mode LEASE, but this call asked for " + other)
                        .hasMessageContaining("two holders")
                        .hasMessageContaining("stop every instance");
            }
            assertThat(lease.isHeld()).isTrue();
            assertThat(LockFixture.dao(dataSource).find(stock).orElseThrow().held())
                    .isTrue();
            assertThat(app.heldCount()).isEqualTo(1);
        }
    }

    @Test
    void anotherInstanceIsRefusedTooAndItsLeaseWaitsForTheHolder() throws Exception {
        LockManager first = instance();
        LockManager second = instance();
        LockKey stock = new LockKey("stock-2", "1");
        try (LockHandle lease = acquire(first, stock, LockMode.LEASE)) {
            for (LockMode other : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                assertThatThrownBy(() -> second.tryAcquire(stock, other, Duration.ZERO, null))
                        .as("%s from another instance while LEASE holds it", other)
                        .isInstanceOf(LockModeConflictException.class)
                        .hasMessageContaining("bound to mode LEASE");
            }
            assertThat(second.tryAcquire(stock, LockMode.LEASE, Duration.ofMillis(50), null))
                    .as("the lock in its own mode is held by the first instance")
                    .isEmpty();
            assertThat(lease.isHeld()).isTrue();
        }
        try (LockHandle taken = acquire(second, stock, LockMode.LEASE)) {
            assertThat(taken.isHeld()).isTrue();
        }
    }

    @Test
    void aNameFirstUsedInRowRefusesLeaseAndNamed() throws Exception {
        LockManager first = instance();
        LockManager second = instance();
        LockKey key = new LockKey("row-first", "1");
        acquire(first, key, LockMode.ROW).close();
        for (LockManager manager : List.of(first, second)) {
            for (LockMode other : new LockMode[] {LockMode.LEASE, LockMode.NAMED}) {
                assertThatThrownBy(() -> manager.tryAcquire(key, other, Duration.ZERO, null))
                        .isInstanceOf(LockModeConflictException.class)
                        .hasMessageContaining("bound to mode ROW, but this call asked for " + other);
            }
        }
        assertThat(LockFixture.dao(dataSource).find(key))
                .as("no lease row was written")
                .isEmpty();
    }

    @Test
    void theBindingHoldsForEveryKeyOfTheName() throws Exception {
        LockManager app = instance();
        acquire(app, new LockKey("per-name", "1"), LockMode.NAMED).close();
        assertThatThrownBy(() -> app.tryAcquire(new LockKey("per-name", "2"), LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(LockModeConflictException.class);
    }

    @Test
    void theBindingSurvivesARestart() throws Exception {
        LockKey key = new LockKey("restarted", "1");
        LockManager before = instance();
        acquire(before, key, LockMode.NAMED).close();
        before.close();
        managers.remove(before);

        LockManager after = instance();
        assertThatThrownBy(() -> after.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(LockModeConflictException.class)
                .hasMessageContaining("bound to mode NAMED");
        acquire(after, key, LockMode.NAMED).close();
    }

    @Test
    void namesInDifferentModesAreHeldSideBySide() throws Exception {
        LockManager app = instance();
        try (LockHandle lease = acquire(app, new LockKey("side-lease", "1"), LockMode.LEASE);
                LockHandle row = acquire(app, new LockKey("side-row", "1"), LockMode.ROW);
                LockHandle named = acquire(app, new LockKey("side-named", "1"), LockMode.NAMED)) {
            assertThat(List.of(lease, row, named)).allMatch(LockHandle::isHeld);
            assertThat(app.heldCount()).isEqualTo(3);
        }
    }

    @Test
    void racingFirstUsesInTwoModesAgreeOnOne() throws Exception {
        LockManager first = instance();
        LockManager second = instance();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 5; round++) {
                LockKey key = new LockKey("race-" + round, "1");
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Optional<LockMode>>> outcomes = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    LockManager manager = i % 2 == 0 ? first : second;
                    LockMode mode = i % 4 < 2 ? LockMode.LEASE : LockMode.ROW;
                    Callable<Optional<LockMode>> attempt = () -> {
                        start.await();
                        try {
                            acquire(manager, key, mode).close();
                            return Optional.of(mode);
                        } catch (LockModeConflictException ex) {
                            return Optional.empty();
                        }
                    };
                    outcomes.add(pool.submit(attempt));
                }
                start.countDown();
                List<LockMode> succeeded = new ArrayList<>();
                for (Future<Optional<LockMode>> outcome : outcomes) {
                    outcome.get(30, TimeUnit.SECONDS).ifPresent(succeeded::add);
                }
                assertThat(succeeded).as("round %d", round).hasSize(threads / 2);
                assertThat(succeeded).as("round %d", round).containsOnly(succeeded.get(0));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theDocumentedModeChangeMovesANameAndItsTokensKeepRising() throws Exception {
        LockKey key = new LockKey("moving", "1");
        LockManager before = instance();
        long lastLeaseToken = 0;
        for (int i = 0; i < 3; i++) {
            try (LockHandle lease = acquire(before, key, LockMode.LEASE)) {
                assertThat(lease.fencingToken()).isGreaterThan(lastLeaseToken);
                lastLeaseToken = lease.fencingToken();
            }
        }
        String statements = changeStatements(before, key, LockMode.ROW);
        // Every instance stops, then the operator runs the statements.
        before.close();
        managers.remove(before);
        runScript(statements);

        LockManager after = instance();
        try (LockHandle row = acquire(after, key, LockMode.ROW)) {
            assertThat(row.fencingToken()).isGreaterThan(lastLeaseToken);
        }
        assertThatThrownBy(() -> after.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(LockModeConflictException.class)
                .hasMessageContaining("bound to mode ROW");

        // And back: a key's ROW counter left from an earlier time in ROW must not restart below the LEASE tokens.
        long lastRowToken;
        try (LockHandle row = acquire(after, key, LockMode.ROW)) {
            lastRowToken = row.fencingToken();
        }
        runScript(changeStatements(after, key, LockMode.LEASE));
        after.close();
        managers.remove(after);
        LockManager again = instance();
        long leaseToken;
        try (LockHandle lease = acquire(again, key, LockMode.LEASE)) {
            leaseToken = lease.fencingToken();
            assertThat(leaseToken).isGreaterThan(lastRowToken);
        }
        runScript(changeStatements(again, key, LockMode.ROW));
        again.close();
        managers.remove(again);
        try (LockHandle row = acquire(instance(), key, LockMode.ROW)) {
            assertThat(row.fencingToken()).isGreaterThan(leaseToken);
        }
    }

    @Test
    void theModeChangeStatementsWorkForAnyName() throws Exception {
        LockKey key = new LockKey("o'neil\\库存", "1");
        LockManager before = instance();
        long leaseToken;
        try (LockHandle lease = acquire(before, key, LockMode.LEASE)) {
            leaseToken = lease.fencingToken();
        }
        String statements = changeStatements(before, key, LockMode.NAMED);
        assertThat(statements).contains("X'").doesNotContain("库存");
        before.close();
        managers.remove(before);
        runScript(statements);
        try (LockHandle named = acquire(instance(), key, LockMode.NAMED)) {
            assertThat(named.fencingToken()).isGreaterThan(leaseToken);
        }
    }

    @Test
    void theModesPageShowsTheStatementsAsTheErrorPrintsThem() throws Exception {
        LockManager app = instance();
        LockKey stock = new LockKey("stock", "1");
        acquire(app, stock, LockMode.LEASE).close();
        String modes = Files.readString(Path.of("..", "docs", "modes.md"));
        String section = modes.substring(modes.indexOf("## Changing a name's mode"));
        String block = section.substring(section.indexOf("```sql\n") + 7, section.indexOf("   ```\n"));
        assertThat(block.replaceAll("(?m)^   ", "")).isEqualTo(changeStatements(app, stock, LockMode.ROW));
    }

    /** The statements the conflict's message tells an operator to run to bind the key's name to {@code mode}. */
    private static String changeStatements(LockManager manager, LockKey key, LockMode mode) {
        try {
            manager.tryAcquire(key, mode, Duration.ZERO, null).ifPresent(LockHandle::close);
        } catch (LockModeConflictException ex) {
            String message = ex.getMessage();
            return message.substring(message.indexOf(":\n") + 2);
        } catch (InterruptedException ex) {
            throw new AssertionError(ex);
        }
        throw new AssertionError(key.name() + " was not refused in " + mode);
    }

    private void runScript(String statements) {
        for (String statement : statements.replaceAll("(?m)^--.*$", "").split(";")) {
            if (!statement.isBlank()) {
                jdbc.execute(statement.strip());
            }
        }
    }

    @Test
    void aRowOrNamedCallRefusedOnAMultiWriterClusterLeavesItsNameUnbound() throws Exception {
        String instanceId = InstanceId.generate();
        LockDaos galera =
                LockDaos.of(dataSource, new DataSourceTransactionManager(dataSource), galeraNodeOfThisServer());
        DataSource sessions = SessionLocks.dedicated(dataSource);
        LockManager onCluster = LockFixture.manager(LockFixture.daos(dataSource), instanceId)
                .engine(LockFixture.row(galera, sessions, 8, instanceId))
                .engine(LockFixture.named(galera, sessions, 8, instanceId))
                .build();
        managers.add(onCluster);
        LockKey key = new LockKey("refused-on-cluster", "1");
        for (LockMode refused : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
            assertThatThrownBy(() -> onCluster.tryAcquire(key, refused, Duration.ZERO, null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bizlock refuses " + refused + " locks on this server");
        }
        try (LockHandle lease = acquire(instance(), key, LockMode.LEASE)) {
            assertThat(lease.isHeld())
                    .as("the refused calls bound nothing: the name is free for its first real use")
                    .isTrue();
        }
    }

    /** This test server's dialect, as on a Galera node: ROW and NAMED are refused there before any statement. */
    private Dialect galeraNodeOfThisServer() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData meta = connection.getMetaData();
            return Dialects.forServer(
                    meta.getDatabaseProductName(),
                    meta.getDatabaseProductVersion(),
                    TableName.DEFAULT,
                    new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON (pretended by a test)", false));
        }
    }

    private static LockHandle acquire(LockManager manager, LockKey key, LockMode mode) throws InterruptedException {
        return manager.tryAcquire(key, mode, Duration.ofSeconds(10), null)
                .orElseThrow(() -> new AssertionError(key + " was not acquired in " + mode));
    }
}
