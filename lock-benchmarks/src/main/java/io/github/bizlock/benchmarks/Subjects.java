package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The lock implementations under test, each behind the same small interface: a {@link Node} is one lock client (one
 * application instance), used by one or several threads.
 */
final class Subjects {

    /** How long any lock call waits before the benchmark gives up. */
    static final Duration WAIT = Duration.ofSeconds(30);

    /** The LEASE engine's default backoff, also used for ShedLock, which has no waiting of its own. */
    static final Backoff BACKOFF = Backoff.DEFAULT;

    private Subjects() {}

    /** Where the subjects connect. */
    record Env(String jdbcUrl, String user, String password, String redisHost, int redisPort) {

        List<String> toArgs() {
            return List.of(jdbcUrl, user, password, redisHost, Integer.toString(redisPort));
        }

        static Env fromArgs(String[] args, int from) {
            return new Env(
                    args[from], args[from + 1], args[from + 2], args[from + 3], Integer.parseInt(args[from + 4]));
        }
    }

    interface Node extends AutoCloseable {
        /** Acquires the lock {@code key}, waiting up to {@link #WAIT}. */
        Held lock(String key) throws Exception;

        @Override
        void close() throws Exception;
    }

    interface Held {
        /** The fencing token, or -1 when the implementation has none. */
        long token();

        void unlock() throws Exception;

        /** A hold with this token, released by {@code release}. */
        static Held of(long token, Release release) {
            return of(() -> token, release);
        }

        /** A hold whose token is asked of {@code token} on every {@link #token()} call, and only then. */
        static Held of(LongSupplier token, Release release) {
            return new Held() {
                @Override
                public long token() {
                    return token.getAsLong();
                }

                @Override
                public void unlock() throws Exception {
                    release.run();
                }
            };
        }

        /** A {@link Lock} taken within {@link #WAIT}, which has no fencing token. */
        static Held tryLock(Lock lock, String implementation) throws InterruptedException {
            if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(implementation + ": not acquired in " + WAIT);
            }
            return of(-1, lock::unlock);
        }

        @FunctionalInterface
        interface Release {
            void run() throws Exception;
        }
    }

    /** One implementation. */
    record Subject(String id, String label, Kind kind, boolean contended, Token token) {

        /** An implementation without a fencing token. */
        Subject(String id, String label, Kind kind, boolean contended) {
            this(id, label, kind, contended, Token.NONE);
        }
    }

    enum Kind {
        DATABASE,
        REDIS,
        NONE
    }

    /** Whether an implementation has a fencing token, and whether its node reads it by itself. */
    enum Token {
        /** The implementation has none: {@link Held#token()} is -1. */
        NONE,
        /** bizlock: the token is read only where a scenario calls {@link Held#token()} (C1 and C do, A and B not). */
        WHEN_ASKED,
        /** bizlock: the node reads the token in every {@link Node#lock}, as a holder that fences its writes does. */
        EVERY_LOCK
    }

    static final Subject LEASE = bizlock("bizlock-lease", "bizlock LEASE", Token.WHEN_ASKED);
    static final Subject ROW = bizlock("bizlock-row", "bizlock ROW", Token.WHEN_ASKED);
    static final Subject NAMED = bizlock("bizlock-named", "bizlock NAMED", Token.WHEN_ASKED);
    // ROW and NAMED issue their token only when asked, so A also shows what asking costs; LEASE's token is free.
    static final Subject ROW_TOKEN = bizlock("bizlock-row-token", "bizlock ROW + token", Token.EVERY_LOCK);
    static final Subject NAMED_TOKEN = bizlock("bizlock-named-token", "bizlock NAMED + token", Token.EVERY_LOCK);
    static final Subject LEASE_FAIR = bizlock("bizlock-lease-fair", "bizlock LEASE fair", Token.WHEN_ASKED);
    static final Subject ROW_FAIR = bizlock("bizlock-row-fair", "bizlock ROW fair", Token.WHEN_ASKED);
    static final Subject NAMED_FAIR = bizlock("bizlock-named-fair", "bizlock NAMED fair", Token.WHEN_ASKED);
    static final Subject SHEDLOCK =
            new Subject("shedlock", "ShedLock JdbcTemplateLockProvider (DB time)", Kind.DATABASE, true);
    static final Subject SPRING_INTEGRATION =
            new Subject("spring-integration", "Spring Integration JdbcLockRegistry", Kind.DATABASE, true);
    static final Subject REDISSON = new Subject("redisson", "Redisson RLock (Redis)", Kind.REDIS, true);
    static final Subject FLOOR_INSERT_DELETE =
            new Subject("floor-insert-delete", "floor: INSERT + DELETE (unique key)", Kind.DATABASE, false);
    static final Subject FLOOR_GET_LOCK =
            new Subject("floor-get-lock", "floor: GET_LOCK + RELEASE_LOCK", Kind.DATABASE, true);
    static final Subject FLOOR_FOR_UPDATE =
            new Subject("floor-for-update", "floor: SELECT FOR UPDATE + COMMIT", Kind.DATABASE, true);
    static final Subject FLOOR_SELECT_1 = new Subject("floor-select-1", "floor: SELECT 1", Kind.DATABASE, false);

    static final List<Subject> ALL = List.of(
            LEASE,
            ROW,
            NAMED,
            ROW_TOKEN,
            NAMED_TOKEN,
            LEASE_FAIR,
            ROW_FAIR,
            NAMED_FAIR,
            SHEDLOCK,
            SPRING_INTEGRATION,
            REDISSON,
            FLOOR_INSERT_DELETE,
            FLOOR_GET_LOCK,
            FLOOR_FOR_UPDATE,
            FLOOR_SELECT_1);

    private static Subject bizlock(String id, String label, Token token) {
        return new Subject(id, label, Kind.DATABASE, true, token);
    }

    static Subject byId(String id) {
        return ALL.stream()
                .filter(subject -> subject.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown subject " + id));
    }

    /** The tables every subject needs, created in a fresh database. */
    static final List<String> DDL = List.of(
            // ShedLock's documented MySQL table.
            "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL,"
                    + " locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL,"
                    + " PRIMARY KEY (name))",
            // Spring Integration's schema-mysql.sql (7.1).
            "CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36),"
                    + " CREATED_DATE DATETIME(6) NOT NULL, EXPIRED_AFTER DATETIME(6) NOT NULL,"
                    + " constraint INT_LOCK_PK primary key (LOCK_KEY, REGION)) ENGINE=InnoDB",
            // The floors' tables: a unique key like biz_lock's, and pre-created rows for FOR UPDATE.
            "CREATE TABLE bench_insert (k VARBINARY(191) NOT NULL PRIMARY KEY) ENGINE=InnoDB",
            "CREATE TABLE bench_row (k VARBINARY(191) NOT NULL PRIMARY KEY) ENGINE=InnoDB");

    static Node node(Subject subject, Env env, int threads) throws Exception {
        return switch (subject.id()) {
            case "bizlock-lease" -> new BizLockNode(env, LockMode.LEASE, threads, false, false, null);
            case "bizlock-row" -> new BizLockNode(env, LockMode.ROW, threads, false, false, null);
            case "bizlock-named" -> new BizLockNode(env, LockMode.NAMED, threads, false, false, null);
            case "bizlock-row-token" -> new BizLockNode(env, LockMode.ROW, threads, false, true, null);
            case "bizlock-named-token" -> new BizLockNode(env, LockMode.NAMED, threads, false, true, null);
            case "bizlock-lease-fair" -> new BizLockNode(env, LockMode.LEASE, threads, true, false, null);
            case "bizlock-row-fair" -> new BizLockNode(env, LockMode.ROW, threads, true, false, null);
            case "bizlock-named-fair" -> new BizLockNode(env, LockMode.NAMED, threads, true, false, null);
            case "shedlock" -> new ShedLockNode(env, threads);
            case "spring-integration" -> new SpringIntegrationNode(env, threads);
            case "redisson" -> new RedissonNode(env, threads);
            case "floor-insert-delete" -> new InsertDeleteFloor(env, threads);
            case "floor-get-lock" -> new GetLockFloor(env, threads);
            case "floor-for-update" -> new ForUpdateFloor(env, threads);
            case "floor-select-1" -> new SelectOneFloor(env, threads);
            default -> throw new IllegalArgumentException("unknown subject " + subject.id());
        };
    }

    static HikariDataSource pool(Env env, int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env.jdbcUrl());
        config.setUsername(env.user());
        config.setPassword(env.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setAutoCommit(autoCommit);
        config.setPoolName("bench");
        return new HikariDataSource(config);
    }

    /**
     * bizlock through its {@link LockManager}, built the way the auto-configuration builds it. The fencing token is
     * asked of the handle only when {@link Held#token()} is called, unless {@code readToken} has every lock read it.
     */
    static final class BizLockNode implements Node {

        final HikariDataSource pool;
        final LockManager manager;
        final LockMode mode;
        final boolean readToken;

        BizLockNode(Env env, LockMode mode, int threads, boolean fair, boolean readToken, Duration watchdogLease) {
            this.mode = mode;
            this.readToken = readToken;
            this.pool = pool(env, Math.max(2, Math.min(threads, 10)), true);
            String owner = InstanceId.generate();
            BizLockDao dao = new BizLockDao(
                    pool,
                    new DataSourceTransactionManager(pool),
                    Dialects.detect(pool, TableName.DEFAULT),
                    TableName.DEFAULT);
            DriverManagerDataSource sessions = new DriverManagerDataSource(env.jdbcUrl(), env.user(), env.password());
            LockEngine engine = switch (mode) {
                case LEASE -> new LeaseLockEngine(dao, owner, BACKOFF);
                case ROW -> SessionLockEngine.row(dao, sessions, threads + 2, owner);
                case NAMED -> SessionLockEngine.named(dao, sessions, threads + 2, owner);
            };
            LockManager.Builder builder = LockManager.builder(owner)
                    .engine(engine)
                    .modeBindings(dao.modes())
                    .fair(fair);
            if (watchdogLease != null) {
                builder.watchdogLease(watchdogLease);
            }
            this.manager = builder.build();
        }

        @Override
        public Held lock(String key) throws Exception {
            // A name per mode: each lock name is bound to the mode of its first use.
            LockHandle handle = manager.tryAcquire(new LockKey("bench-" + mode, key), mode, WAIT, null)
                    .orElseThrow(() -> new IllegalStateException("bizlock: not acquired in " + WAIT));
            Held held = Held.of(handle::fencingToken, handle::unlock);
            if (readToken) {
                held.token();
            }
            return held;
        }

        @Override
        public void close() {
            manager.close();
            pool.close();
        }
    }

    /** ShedLock has no waiting: a waiter retries with the same backoff as bizlock's LEASE engine. */
    static final class ShedLockNode implements Node {

        final HikariDataSource pool;
        final JdbcTemplateLockProvider provider;

        ShedLockNode(Env env, int threads) {
            this.pool = pool(env, Math.max(2, Math.min(threads, 10)), true);
            this.provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(pool))
                    .usingDbTime()
                    .build());
        }

        @Override
        public Held lock(String key) throws Exception {
            long deadline = System.nanoTime() + WAIT.toNanos();
            for (int attempt = 1; ; attempt++) {
                Optional<SimpleLock> lock = provider.lock(
                        new LockConfiguration(Instant.now(), "bench-" + key, Duration.ofSeconds(30), Duration.ZERO));
                if (lock.isPresent()) {
                    return Held.of(-1, lock.get()::unlock);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("ShedLock: not acquired in " + WAIT);
                }
                TimeUnit.NANOSECONDS.sleep(BACKOFF.pauseNanos(attempt));
            }
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    /** Spring Integration's JdbcLockRegistry with its defaults (DefaultLockRepository, 100 ms between tries). */
    static final class SpringIntegrationNode implements Node {

        final HikariDataSource pool;
        final DefaultLockRepository repository;
        final JdbcLockRegistry registry;

        SpringIntegrationNode(Env env, int threads) {
            this.pool = pool(env, Math.max(2, Math.min(threads, 10)), true);
            this.repository = new DefaultLockRepository(pool);
            repository.setTransactionManager(new DataSourceTransactionManager(pool));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            repository.start();
            this.registry = new JdbcLockRegistry(repository);
        }

        @Override
        public Held lock(String key) throws Exception {
            return Held.tryLock(registry.obtain(key), "Spring Integration");
        }

        @Override
        public void close() {
            repository.stop();
            repository.close();
            pool.close();
        }
    }

    /** Redisson's RLock with its watchdog (no lease given), as {@code lock()} is usually called. */
    static final class RedissonNode implements Node {

        final RedissonClient client;

        RedissonNode(Env env, int threads) {
            Config config = new Config();
            config.setThreads(2);
            config.setNettyThreads(Math.max(4, threads));
            config.useSingleServer()
                    .setAddress("redis://" + env.redisHost() + ":" + env.redisPort())
                    .setConnectionPoolSize(Math.max(4, threads + 2))
                    .setConnectionMinimumIdleSize(Math.max(2, threads))
                    .setSubscriptionConnectionPoolSize(4)
                    .setSubscriptionConnectionMinimumIdleSize(1);
            this.client = Redisson.create(config);
        }

        @Override
        public Held lock(String key) throws Exception {
            return Held.tryLock(client.getLock("bench:" + key), "Redisson");
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    /** A lock floor on a pooled connection: the statements only, no library around them. */
    abstract static class Floor implements Node {

        final HikariDataSource pool;

        Floor(Env env, int threads, boolean autoCommit) {
            this.pool = pool(env, Math.max(1, threads), autoCommit);
        }

        @Override
        public void close() {
            pool.close();
        }

        static boolean queryTrue(Connection connection, String sql, String key) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                if (key != null) {
                    statement.setString(1, key);
                }
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() && row.getInt(1) == 1;
                }
            }
        }

        static int update(Connection connection, String sql, String key) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setString(1, key);
                return statement.executeUpdate();
            }
        }

        /**
         * Borrows a connection and takes the lock on it with {@code take}; the hold releases it with {@code release}
         * and gives the connection back. A failed take gives it back at once.
         */
        Held hold(SqlAction take, SqlAction release) throws SQLException {
            Connection connection = pool.getConnection();
            try {
                take.run(connection);
            } catch (SQLException | RuntimeException ex) {
                connection.close();
                throw ex;
            }
            return Held.of(-1, () -> {
                try (connection) {
                    release.run(connection);
                }
            });
        }

        interface SqlAction {
            void run(Connection connection) throws SQLException;
        }
    }

    /** {@code INSERT} on a unique key to lock, {@code DELETE} to unlock (autocommit): LEASE's floor. */
    static final class InsertDeleteFloor extends Floor {

        InsertDeleteFloor(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            return hold(
                    c -> update(c, "INSERT INTO bench_insert (k) VALUES (?)", key),
                    c -> update(c, "DELETE FROM bench_insert WHERE k = ?", key));
        }
    }

    /** {@code GET_LOCK} / {@code RELEASE_LOCK}: NAMED's floor; the server queues waiters. */
    static final class GetLockFloor extends Floor {

        GetLockFloor(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            String name = "bench-floor-" + key;
            return hold(
                    c -> {
                        if (!queryTrue(c, "SELECT GET_LOCK(?, " + WAIT.toSeconds() + ")", name)) {
                            throw new IllegalStateException("GET_LOCK: not acquired in " + WAIT);
                        }
                    },
                    c -> queryTrue(c, "SELECT RELEASE_LOCK(?)", name));
        }
    }

    /** {@code SELECT ... FOR UPDATE} on a pre-created row, released by {@code COMMIT}: ROW's floor. */
    static final class ForUpdateFloor extends Floor {

        private final Set<String> created = new HashSet<>();

        ForUpdateFloor(Env env, int threads) {
            super(env, threads, false);
        }

        @Override
        public Held lock(String key) throws Exception {
            synchronized (created) {
                if (created.add(key)) {
                    try (Connection connection = pool.getConnection()) {
                        update(connection, "INSERT IGNORE INTO bench_row (k) VALUES (?)", key);
                        connection.commit();
                    }
                }
            }
            return hold(
                    c -> {
                        try (PreparedStatement statement =
                                c.prepareStatement("SELECT k FROM bench_row WHERE k = ? FOR UPDATE")) {
                            statement.setString(1, key);
                            statement.executeQuery().close();
                        }
                    },
                    Connection::commit);
        }
    }

    /** One round trip and nothing else. */
    static final class SelectOneFloor extends Floor {

        SelectOneFloor(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            return hold(c -> queryTrue(c, "SELECT 1", null), c -> {});
        }
    }
}
