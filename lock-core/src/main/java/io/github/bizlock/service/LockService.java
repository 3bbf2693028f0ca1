package io.github.bizlock.service;

import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockDatabase;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * bizlock without Spring Boot: everything the auto-configuration assembles, built from a {@link DataSource}. The lock
 * tables must exist ({@link Builder#build()} fails with their DDL if not); the service owns a housekeeping thread and, with a
 * {@linkplain Builder#sessionDataSource session DataSource}, the connections of held ROW and NAMED locks, so
 * {@link #close()} it when the application stops (a Spring {@code @Bean} is closed by the container).
 *
 * <pre>{@code
 * LockService locks = LockService.builder(dataSource).waitTime(Duration.ofSeconds(3)).build();
 * locks.template().execute("order", orderId, () -> submit(order));
 * }</pre>
 */
public final class LockService implements AutoCloseable {

    private final LockManager manager;
    private final LockTemplate template;
    private final @Nullable Housekeeper housekeeper;
    private final LockWriteConnections writes;

    private LockService(
            LockManager manager,
            LockTemplate template,
            @Nullable Housekeeper housekeeper,
            LockWriteConnections writes) {
        this.manager = manager;
        this.template = template;
        this.housekeeper = housekeeper;
        this.writes = writes;
    }

    /**
     * A builder of locks on the lock tables of {@code dataSource}. LEASE writes and renewals run on connections the
     * application cannot take: a copy of its HikariCP pool, or see {@link Builder#lockConnections}.
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The template to lock with; the bean to define for {@code @DistributedLock}. */
    public LockTemplate template() {
        return template;
    }

    /**
     * Stops housekeeping and shuts the locks down: new acquisitions fail, and the locks still held are reported lost
     * to their holders ({@link io.github.bizlock.LossCause#SHUTDOWN}) and released at once, LEASE rows freed and the
     * connections of ROW and NAMED locks closed.
     */
    @Override
    public void close() {
        // Housekeeping locks through the manager, so it stops first.
        if (housekeeper != null) {
            housekeeper.close();
        }
        manager.close();
        // Last: the manager's releases run on them.
        writes.close();
    }

    /** Builds a {@link LockService}; every setting has the default of the {@code bizlock.*} property of that name. */
    public static final class Builder {

        private final DataSource dataSource;
        private LockMode defaultMode = LockMode.LEASE;
        private String tableName = TableName.DEFAULT;
        private @Nullable String instanceId;
        private Duration waitTime = Duration.ZERO;
        private @Nullable Duration leaseTime;
        private Duration watchdogLease = LockManager.DEFAULT_WATCHDOG_LEASE;
        private boolean fair;
        private int localHandoffs = LockManager.DEFAULT_LOCAL_HANDOFFS;
        private LockLostPolicy onLost = LockLostPolicy.LOG;
        private Backoff backoff = Backoff.DEFAULT;
        private @Nullable DataSource sessionDataSource;
        private @Nullable DataSource lockConnections;
        private int maxSessions = 10;
        private Duration sessionHeartbeat = SessionLockEngine.DEFAULT_HEARTBEAT;
        private @Nullable String namedSecret;
        private boolean singleWriter;
        private boolean housekeeping = true;
        private Duration housekeepingInterval = Duration.ofMinutes(10);
        private Duration housekeepingRetention = Duration.ofHours(1);
        private int housekeepingBatchSize = 500;
        private final List<LockLostListener> listeners = new ArrayList<>();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** Mode of locks that do not choose one (default LEASE); ROW and NAMED need a {@link #sessionDataSource}. */
        public Builder defaultMode(LockMode defaultMode) {
            this.defaultMode = Objects.requireNonNull(defaultMode, "defaultMode");
            return this;
        }

        /** Name of the lock table, in the DataSource's schema (default {@code biz_lock}). */
        public Builder tableName(String tableName) {
            this.tableName = TableName.validate(tableName);
            return this;
        }

        /**
         * Name of this instance in lock rows (default host:pid:random); a random part is added to it, {@code id:random},
         * so replicas that share a name (the application's) stay distinct owners.
         */
        public Builder instanceId(String instanceId) {
            this.instanceId = InstanceId.validate(instanceId);
            return this;
        }

        /** How long to wait for a lock held elsewhere when the caller does not say (default 0: a single attempt). */
        public Builder waitTime(Duration waitTime) {
            this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
            return this;
        }

        /** Fixed lease of locks that do not set one; {@code null} (the default) has a watchdog renew leases. */
        public Builder leaseTime(@Nullable Duration leaseTime) {
            this.leaseTime = leaseTime;
            return this;
        }

        /** Lease of watchdog-renewed locks, renewed every third of it (default 30 s). */
        public Builder watchdogLease(Duration watchdogLease) {
            this.watchdogLease = Objects.requireNonNull(watchdogLease, "watchdogLease");
            return this;
        }

        /** Whether threads of this process get a contended lock in the order they asked for it (default false). */
        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        /** How often a lock may pass straight to a waiting thread of this process before it is released (16). */
        public Builder localHandoffs(int localHandoffs) {
            this.localHandoffs = localHandoffs;
            return this;
        }

        /** What happens to the work under a lock lost while held, when the lock's options do not say (LOG). */
        public Builder onLost(LockLostPolicy onLost) {
            this.onLost = Objects.requireNonNull(onLost, "onLost");
            return this;
        }

        /** Pauses between attempts on a LEASE lock held elsewhere, doubling from initial to max (5 ms, 100 ms). */
        public Builder backoff(Duration initial, Duration max) {
            this.backoff = new Backoff(initial, max);
            return this;
        }

        /**
         * Where ROW and NAMED locks get the connection each holds while locked: plain connections to the same database
         * (a {@code SimpleDriverDataSource}, no pool and no auto-reconnect), never the application's pool. Without it,
         * only LEASE locks are available.
         */
        public Builder sessionDataSource(DataSource sessionDataSource) {
            this.sessionDataSource = Objects.requireNonNull(sessionDataSource, "sessionDataSource");
            return this;
        }

        /**
         * Where LEASE writes, renewals, releases and fencing tokens run, each statement on a connection of its own in
         * autocommit: a small pool you make beside the application's. By default bizlock makes one of 4 connections: a
         * copy of the DataSource's settings when it is a HikariCP pool, else over the {@link #sessionDataSource}'s
         * plain connections; with neither, they borrow from the DataSource and a warning says so.
         */
        public Builder lockConnections(DataSource lockConnections) {
            this.lockConnections = Objects.requireNonNull(lockConnections, "lockConnections");
            return this;
        }

        /** Most connections ROW and NAMED locks may hold at once, per mode (default 10). */
        public Builder maxSessions(int maxSessions) {
            if (maxSessions < 1) {
                throw new IllegalArgumentException("maxSessions must be at least 1, was " + maxSessions);
            }
            this.maxSessions = maxSessions;
            return this;
        }

        /**
         * How often a held ROW or NAMED lock's session is checked (default 1 s; a third of the watchdog's lease if that
         * is shorter): the longest a holder goes on after its session was killed or the server restarted.
         */
        public Builder sessionHeartbeat(Duration sessionHeartbeat) {
            if (sessionHeartbeat.isNegative() || sessionHeartbeat.isZero()) {
                throw new IllegalArgumentException("sessionHeartbeat must be positive, was " + sessionHeartbeat);
            }
            this.sessionHeartbeat = sessionHeartbeat;
            return this;
        }

        /**
         * The secret NAMED lock names are keyed by (default none), the same on every instance, so that other accounts
         * on the server cannot compute a key's lock name to probe or block it.
         */
        public Builder namedSecret(String namedSecret) {
            if (namedSecret.isBlank()) {
                throw new IllegalArgumentException("namedSecret must not be blank");
            }
            this.namedSecret = namedSecret;
            return this;
        }

        /**
         * Declares that every instance sends all its lock traffic to one node of a multi-writer cluster (Galera,
         * multi-primary Group Replication), which lets ROW and NAMED locks run there (default false: they are refused
         * on such a cluster, since they lock one node only). LEASE is exact on a cluster either way.
         */
        public Builder singleWriter(boolean singleWriter) {
            this.singleWriter = singleWriter;
            return this;
        }

        /** Whether to delete rows of locks free or expired for longer than the retention (default true). */
        public Builder housekeeping(boolean housekeeping) {
            this.housekeeping = housekeeping;
            return this;
        }

        /**
         * When housekeeping runs, on one instance at a time, and what it deletes.
         *
         * @param interval how often it runs (default 10 min)
         * @param retention how long a row is kept after its lock was released or its lease ended (default 1 h)
         * @param batchSize most rows deleted per statement (default 500)
         */
        public Builder housekeeping(Duration interval, Duration retention, int batchSize) {
            this.housekeepingInterval = Objects.requireNonNull(interval, "interval");
            this.housekeepingRetention = Objects.requireNonNull(retention, "retention");
            this.housekeepingBatchSize = batchSize;
            return this;
        }

        /** Adds a listener told when a held lock is lost, e.g. {@code applicationContext::publishEvent}. */
        public Builder listener(LockLostListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Checks the server and the lock tables, then starts the service.
         *
         * @throws IllegalStateException if the server is not MySQL 8.0+ or MariaDB 10.6+, if it takes no writes (a
         *     replica), if a lock table is missing (the message holds the DDL to run), if the default mode needs a
         *     session DataSource that was not given, or is ROW or NAMED on a multi-writer cluster not declared
         *     {@link #singleWriter single-writer}
         */
        public LockService build() {
            // Opened at the first lock: a build that fails leaves nothing open.
            LockWriteConnections writes = LockWriteConnections.choose(dataSource, lockConnections, sessionDataSource);
            if (defaultMode != LockMode.LEASE && sessionDataSource == null) {
                throw new IllegalStateException("The default mode " + defaultMode + " holds a connection per lock:"
                        + " give the builder a sessionDataSource of plain connections to the lock database");
            }
            String owner = InstanceId.of(instanceId);
            LockDaos daos = LockDaos.of(
                    new LockDatabase(
                            dataSource, writes.dataSource(), Dialects.detect(dataSource, tableName, singleWriter)),
                    new DataSourceTransactionManager(dataSource));
            daos.schema().requireTables();
            LockManager.Builder locks = LockManager.builder(owner)
                    .modeBindings(daos.modes())
                    .watchdogLease(watchdogLease)
                    .fair(fair)
                    .localHandoffs(localHandoffs)
                    .engine(new LeaseLockEngine(daos.leases(), owner, backoff));
            if (sessionDataSource != null) {
                SessionLockEngine row = SessionLockEngine.row(
                        daos.dialect(), daos.tokens(), sessionDataSource, maxSessions, owner, sessionHeartbeat);
                SessionLockEngine named = SessionLockEngine.named(
                        daos.dialect(),
                        daos.tokens(),
                        daos.schema(),
                        sessionDataSource,
                        maxSessions,
                        owner,
                        sessionHeartbeat,
                        namedSecret);
                // A default mode that cannot be trusted on this server fails the start, not the first lock.
                if (defaultMode == LockMode.ROW) {
                    row.requireAllowedHere();
                } else if (defaultMode == LockMode.NAMED) {
                    named.requireAllowedHere();
                }
                locks.engine(row).engine(named);
            }
            LockManager manager = locks.build();
            try {
                listeners.forEach(manager::addListener);
                LockTemplate template = new DefaultLockTemplate(manager, defaultMode, waitTime, leaseTime, onLost);
                Housekeeper housekeeper = null;
                if (housekeeping) {
                    housekeeper =
                            new Housekeeper(daos.housekeeping(), manager, housekeepingRetention, housekeepingBatchSize);
                    housekeeper.schedule(housekeepingInterval);
                }
                return new LockService(manager, template, housekeeper, writes);
            } catch (RuntimeException ex) {
                manager.close();
                writes.close();
                throw ex;
            }
        }
    }
}
