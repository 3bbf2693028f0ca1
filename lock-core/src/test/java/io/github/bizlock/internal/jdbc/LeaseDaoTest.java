package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.contract.StatementCounter;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.jdbc.LeaseDao.HeldToken;
import io.github.bizlock.internal.jdbc.dialect.ClusterTopology;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.GaleraDialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The LEASE table's DAO on its own, against the test database: what each of its statements does to the rows. */
@ExtendWith(io.github.bizlock.test.TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseDaoTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final AtomicInteger names = new AtomicInteger();
    private DataSource dataSource;
    private LeaseDao dao;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
        this.dataSource = dataSource;
        this.dao = LockFixture.dao(dataSource);
    }

    private static long inTenSeconds() {
        return System.nanoTime() + Duration.ofSeconds(10).toNanos();
    }

    @AfterEach
    void stopCounting() {
        StatementCounter.countMatching(sql -> false);
    }

    @Test
    void namesTheTableItWasBuiltFor() {
        assertThat(daos(TableName.DEFAULT).table()).isEqualTo(TableName.DEFAULT);
        assertThat(daos("other_lock").table()).isEqualTo("other_lock");
    }

    @Test
    void takesAFreeLockAndRefusesItToAnotherOwnerWhileTheLeaseRuns() {
        LockKey key = newKey();
        OptionalLong token = dao.tryAcquire(key, "owner-a", LEASE, 1, deadline());
        assertThat(token).isPresent();
        assertThat(dao.tryAcquire(key, "owner-b", LEASE, 1, deadline())).isEmpty();
        assertThat(dao.find(key).orElseThrow())
                .extracting(LockRow::owner, LockRow::fencingToken, LockRow::held)
                .containsExactly("owner-a", token.getAsLong(), true);
    }

    @Test
    void reservingFewerThanOneTokenIsRefusedBeforeTheLockIsTaken() {
        LockKey key = newKey();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> dao.tryAcquire(key, "owner-a", LEASE, 0, deadline()))
                .withMessageContaining("At least one fencing token");
        assertThat(dao.find(key)).isEmpty();
    }

    @Test
    void reclaimingTakesOverARowOfTheSameOwnerWithAHigherTokenButNotAnotherOwnersRow() {
        LockKey key = newKey();
        long first = dao.tryAcquire(key, "owner-a", LEASE, 1, deadline()).orElseThrow();

        assertThat(dao.tryAcquire(key, "owner-a", LEASE, 1, false, deadline())).isEmpty();
        assertThat(dao.tryAcquire(key, "owner-b", LEASE, 1, true, deadline())).isEmpty();
        long reclaimed =
                dao.tryAcquire(key, "owner-a", LEASE, 1, true, deadline()).orElseThrow();

        assertThat(reclaimed).isGreaterThan(first);
        assertThat(dao.find(key).orElseThrow().fencingToken()).isEqualTo(reclaimed);
    }

    @Test
    void aNewLockWithoutTheTokenFloorRowFailsSayingHowToRestoreIt() {
        LeaseDao floorless = daoOnNewTables("floorless_lock").leases();
        new JdbcTemplate(dataSource).update("DELETE FROM floorless_lock_token_floor");

        assertThatIllegalStateException()
                .isThrownBy(() -> floorless.tryAcquire(newKey(), "owner-a", LEASE, 1, deadline()))
                .withMessageContaining("The row of floorless_lock_token_floor is missing")
                .withMessageContaining(
                        "INSERT INTO floorless_lock_token_floor (id, floor_token, token_server) VALUES (1,");
    }

    @Test
    void renewingNoLocksSendsNothingAndLosesNothing(TestDatabase database) {
        try (HikariDataSource counted = pool(database, StatementCounter.URL_PARAMETER, config -> {})) {
            LeaseDao countedDao = LockFixture.dao(counted);
            StatementCounter.countMatching(sql -> sql.contains(TableName.DEFAULT));

            assertThat(countedDao.renew("owner-a", LEASE, List.of(), inTenSeconds()))
                    .isEmpty();
            assertThat(StatementCounter.matched()).isZero();
        }
    }

    @Test
    void renewingLocksAllStillHeldIsOneStatementAndAskingWhichAreHeldOnlyFollowsALoss(TestDatabase database) {
        try (HikariDataSource counted = pool(database, StatementCounter.URL_PARAMETER, config -> {})) {
            LeaseDao countedDao = LockFixture.dao(counted);
            LockKey kept = newKey();
            LockKey lost = newKey();
            List<HeldToken> held = List.of(
                    new HeldToken(
                            kept,
                            countedDao
                                    .tryAcquire(kept, "owner-a", LEASE, 1, deadline())
                                    .orElseThrow()),
                    new HeldToken(
                            lost,
                            countedDao
                                    .tryAcquire(lost, "owner-a", LEASE, 1, deadline())
                                    .orElseThrow()));
            StatementCounter.countMatching(sql -> sql.contains(TableName.DEFAULT));

            assertThat(countedDao.renew("owner-a", LEASE, held, inTenSeconds())).isEmpty();
            assertThat(StatementCounter.matched()).as("the renewal only").isEqualTo(1);

            assertThat(dao.forceRelease(lost)).isTrue();
            StatementCounter.countMatching(sql -> sql.contains(TableName.DEFAULT));
            assertThat(countedDao.renew("owner-a", LEASE, held, inTenSeconds())).containsExactly(lost);
            assertThat(StatementCounter.matched())
                    .as("the renewal, then which are held")
                    .isEqualTo(2);
        }
    }

    @Test
    void releaseAllFreesWhatTheOwnerHoldsWithThoseTokensAHundredLocksPerStatement(TestDatabase database) {
        String owner = "owner-of-many";
        List<HeldToken> locks = new ArrayList<>();
        StringBuilder insert = new StringBuilder("INSERT INTO biz_lock (biz_type, biz_id, owner_id, fencing_token,"
                + " expire_at, created_at, acquired_at, modified_at) VALUES ");
        for (int i = 0; i < 200; i++) {
            LockKey key = new LockKey("many", Integer.toString(i));
            locks.add(new HeldToken(key, i == 7 ? 1000 + i : i + 1)); // 7 is held with another token
            insert.append(i == 0 ? "" : ", ")
                    .append("('many', '")
                    .append(i)
                    .append("', '")
                    .append(owner)
                    .append("', ")
                    .append(i + 1)
                    .append(", UTC_TIMESTAMP(6) + INTERVAL 30 SECOND, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6),"
                            + " UTC_TIMESTAMP(6))");
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.update(insert.toString());
        try (HikariDataSource counted = pool(database, StatementCounter.URL_PARAMETER, config -> {})) {
            LeaseDao countedDao = LockFixture.dao(counted);
            StatementCounter.countMatching(sql -> sql.contains(TableName.DEFAULT));

            assertThat(countedDao.releaseAll(owner, locks)).isEqualTo(199);
            assertThat(StatementCounter.matched()).isEqualTo(2);
        }
        assertThat(jdbc.queryForList("SELECT biz_id FROM biz_lock WHERE owner_id = ?", String.class, bytes(owner)))
                .containsExactly("7");
        assertThat(dao.releaseAll(owner, List.of())).isZero();
    }

    @Test
    void forceReleaseFreesALockWhoeverHoldsItAndSaysWhetherAnyoneDid() {
        LockKey key = newKey();
        dao.tryAcquire(key, "owner-a", LEASE, 1, deadline()).orElseThrow();

        assertThat(dao.forceRelease(key)).isTrue();
        assertThat(dao.find(key).orElseThrow().held()).isFalse();
        assertThat(dao.forceRelease(key)).isFalse();
        assertThat(dao.forceRelease(newKey())).isFalse();
    }

    @Test
    void findHeldListsTheLocksHeldNowOldestFirstUpToTheLimit() {
        LeaseDao own = daoOnNewTables("held_lock").leases();
        LockKey first = newKey();
        LockKey freed = newKey();
        LockKey last = newKey();
        for (LockKey key : List.of(first, freed, last)) {
            own.tryAcquire(key, "owner-a", LEASE, 1, deadline()).orElseThrow();
        }
        assertThat(own.forceRelease(freed)).isTrue();

        assertThat(own.findHeld(10))
                .extracting(row -> new LockKey(row.name(), row.key()))
                .containsExactly(first, last);
        assertThat(own.findHeld(1)).singleElement().satisfies(row -> {
            assertThat(row.key()).isEqualTo(first.key());
            assertThat(row.owner()).isEqualTo("owner-a");
            assertThat(row.held()).isTrue();
        });
    }

    @Test
    void readsOfWhetherALockIsHeldWaitForTheClusterOnlyOnAGaleraNode(TestDatabase database) {
        try (HikariDataSource counted = pool(database, StatementCounter.URL_PARAMETER, config -> {})) {
            LeaseDao countedDao = LockFixture.dao(counted);
            StatementCounter.countMatching(sql -> sql.contains("wsrep_sync_wait"));

            countedDao.find(newKey());

            // On a Galera node: SET SESSION wsrep_sync_wait = 1, the query, then back to the default.
            assertThat(StatementCounter.matched())
                    .isEqualTo(TestDatabases.server().isCluster() ? 2 : 0);
        }
    }

    @Test
    void onAGaleraNodeReadsOfWhetherALockIsHeldWaitForEveryWriteOfTheCluster(TestDatabase database) {
        assumeTrue(TestDatabases.server().isMariaDb(), "wsrep_sync_wait is a MariaDB setting");
        try (HikariDataSource counted = pool(database, StatementCounter.URL_PARAMETER, config -> {})) {
            LockDaos galera = LockDaos.of(
                    counted, new DataSourceTransactionManager(counted), GaleraDialects.mariaDbNode(TableName.DEFAULT));
            LockKey key = newKey();
            long token = dao.tryAcquire(key, "owner-a", LEASE, 1, deadline()).orElseThrow();
            StatementCounter.countMatching(sql -> sql.contains("SET SESSION wsrep_sync_wait"));

            assertThat(galera.leases().find(key).orElseThrow().fencingToken()).isEqualTo(token);
            assertThat(StatementCounter.matched()).isEqualTo(2);
        }
    }

    /**
     * A lease row locked by another transaction: with no lock wait allowed (MariaDB's {@code innodb_lock_wait_timeout
     * = 0}) the server refuses the attempt at once with 1205, as a cluster refuses a conflicting write.
     */
    @Test
    void anAcquisitionTheServerRefusesForNowIsNotAcquiredAndLoggedAtMostOnceInTenSeconds(TestDatabase database)
            throws Exception {
        assumeTrue(TestDatabases.server().isMariaDb(), "MySQL waits at least 1 s for a row lock");
        LockKey key = newKey();
        long token = dao.tryAcquire(key, "owner-a", LEASE, 1, deadline()).orElseThrow();
        assertThat(dao.release(key, "owner-a", token)).isTrue();
        Logger logger = (Logger) LoggerFactory.getLogger(LeaseDao.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try (HikariDataSource noWait =
                        pool(database, "", config -> config.setConnectionInitSql("SET innodb_lock_wait_timeout = 0"));
                Connection other = dataSource.getConnection()) {
            LeaseDao refused = LockFixture.dao(noWait);
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement(
                    "SELECT owner_id FROM biz_lock WHERE biz_type = ? AND biz_id = ? LOCK IN SHARE MODE")) {
                lock.setBytes(1, bytes(key.name()));
                lock.setBytes(2, bytes(key.key()));
                lock.executeQuery().close();
            }

            assertThat(refused.tryAcquire(key, "owner-b", LEASE, 1, deadline())).isEmpty();
            assertThat(refused.tryAcquire(key, "owner-b", LEASE, 1, deadline())).isEmpty();

            other.rollback();
            assertThat(refused.tryAcquire(key, "owner-b", LEASE, 1, deadline())).isPresent();
        } finally {
            logger.detachAppender(logged);
        }
        assertThat(logged.list).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage())
                    .contains("the database refused 1 lock acquisition(s) for now")
                    .contains("Lock wait timeout");
        });
    }

    @Test
    void theDatabaseTimeIsTheServersUtcClock() {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        LocalDateTime before = jdbc.queryForObject("SELECT UTC_TIMESTAMP(6)", LocalDateTime.class);

        LocalDateTime time = dao.databaseTime();

        LocalDateTime after = jdbc.queryForObject("SELECT UTC_TIMESTAMP(6)", LocalDateTime.class);
        assertThat(time).isBetween(before, after);
    }

    /**
     * The test server takes writes, and its {@code read_only} is global, shared with every other test: the dialect is
     * this server's as the topology probe classifies a replica, built by the dialect package's factory.
     */
    @Test
    void aDaoForAServerThatTakesNoWritesCannotBeBuilt() throws Exception {
        Dialect readOnly = dialectWith(new ClusterTopology(ClusterTopology.Kind.READ_ONLY, "read_only=ON", false));
        DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);

        assertThatIllegalStateException()
                .isThrownBy(() -> LockDaos.of(dataSource, transactions, readOnly))
                .withMessageContaining("takes no writes (read_only=ON)");
    }

    /**
     * A trigger stores the binding under another name, as if the row had been deleted between the write and the read
     * that follows it on the same connection.
     */
    @Test
    void aModeBindingMissingRightAfterItsWriteFailsNamingTheTable() {
        LockDaos own = daoOnNewTables("moved_lock");
        new JdbcTemplate(dataSource)
                .execute("CREATE TRIGGER moved_lock_mode_elsewhere BEFORE INSERT ON moved_lock_mode FOR EACH ROW"
                        + " SET NEW.biz_type = CONCAT(NEW.biz_type, '-elsewhere')");

        assertThatIllegalStateException()
                .isThrownBy(() -> own.modes().bind("moved", ModeBindingStore.Binding.locks(LockMode.LEASE), deadline()))
                .withMessageContaining("The binding of lock name 'moved' to a mode is missing from moved_lock_mode");
    }

    private LockKey newKey() {
        return new LockKey("dao-test", Integer.toString(names.incrementAndGet()));
    }

    private static long deadline() {
        return System.nanoTime() + Duration.ofSeconds(10).toNanos();
    }

    private LockDaos daos(String table) {
        Dialect dialect = Dialects.detect(dataSource, table);
        return LockDaos.of(dataSource, new DataSourceTransactionManager(dataSource), dialect);
    }

    /** The dialect of the test server, as if it were a deployment of {@code topology}. */
    private Dialect dialectWith(ClusterTopology topology) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData server = connection.getMetaData();
            return Dialects.forServer(
                    server.getDatabaseProductName(), server.getDatabaseProductVersion(), TableName.DEFAULT, topology);
        }
    }

    /** A DAO on a set of lock tables of its own, created from the migrations like the default ones. */
    private LockDaos daoOnNewTables(String table) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Arrays.stream(LockSchema.ddl(table).replaceAll("(?m)^--.*$", "").split(";"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .forEach(jdbc::execute);
        return daos(table);
    }

    private static HikariDataSource pool(TestDatabase database, String urlParameter, Consumer<HikariConfig> more) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl() + (urlParameter.isEmpty() ? "" : "&" + urlParameter));
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        more.accept(config);
        return new HikariDataSource(config);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
