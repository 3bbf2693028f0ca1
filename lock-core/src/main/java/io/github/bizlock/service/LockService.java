package io.github.bizlock.service;

import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

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
    private final BizLockDao dao;
    private final @Nullable Housekeeper housekeeper;
    private final LockWriteConnections writes;

    LockService(
            LockManager manager,
            LockTemplate template,
            BizLockDao dao,
            @Nullable Housekeeper housekeeper,
            LockWriteConnections writes) {
        this.manager = manager;
        this.template = template;
        this.dao = dao;
        this.housekeeper = housekeeper;
        this.writes = writes;
    }

    /** A builder of locks on the lock tables of {@code dataSource}; LEASE writes: see {@link Builder#lockConnections}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The template to lock with; the bean to define for {@code @DistributedLock}. */
    public LockTemplate template() {
        return template;
    }

    /** The LEASE lock table: its rows, and force release. */
    public BizLockDao dao() {
        return dao;
    }

    /** The locks of this process now, counted: for health checks and gauges. */
    public LockStatus status() {
        return LockStatus.of(manager);
    }

    /** The locks this process holds or waits for now, in every mode. */
    public List<LockStatus.LocalLock> localLocks() {
        return LockStatus.LocalLock.of(manager);
    }

    /**
     * Shuts the locks down so that a redeploy frees them at once: housekeeping stops, new acquisitions fail, holders
     * get up to {@code gracePeriod} to unlock, and the locks still held then are reported lost to their holders
     * ({@link io.github.bizlock.LossCause#SHUTDOWN}) and released. Only the first call (of this or {@link #close()})
     * does anything; {@link #close()} still closes the connections afterwards.
     */
    public void shutdown(Duration gracePeriod) {
        // Housekeeping locks through the manager, so it stops first.
        if (housekeeper != null) {
            housekeeper.close();
        }
        manager.shutdown(gracePeriod);
    }

    /** {@link #shutdown shutdown(Duration.ZERO)}: no grace period; then closes the pool it made for LEASE writes. */
    @Override
    public void close() {
        shutdown(Duration.ZERO);
        // Last: the manager's releases run on them.
        writes.close();
    }

    /** Builds a {@link LockService}; every setting has the default of the {@code bizlock.*} property of that name. */
    public static final class Builder {

        private final ServiceSettings settings;

        private Builder(DataSource dataSource) {
            this.settings = new ServiceSettings(Objects.requireNonNull(dataSource, "dataSource"));
        }

        /** Mode of locks that do not choose one (default LEASE); ROW and NAMED need a {@link #sessionDataSource}. */
        public Builder defaultMode(LockMode defaultMode) {
            settings.defaultMode = Objects.requireNonNull(defaultMode, "defaultMode");
            return this;
        }

        /** Name of the lock table, in the DataSource's schema (default {@code biz_lock}). */
        public Builder tableName(String tableName) {
            settings.tableName = TableName.validate(tableName);
            return this;
        }

        /**
         * Name of this instance in lock rows (default host:pid:random); a random part is added to it, {@code id:random},
         * so replicas that share a name (the application's) stay distinct owners.
         */
        public Builder instanceId(String instanceId) {
            settings.instanceId = InstanceId.of(InstanceId.validate(instanceId));
            return this;
        }

        /** The owner id of this builder's services in lock rows (instance id and random part), known before build. */
        public String instanceId() {
            return settings.instanceId;
        }

        /** How long to wait for a lock held elsewhere when the caller does not say (default 0: a single attempt). */
        public Builder waitTime(Duration waitTime) {
            settings.waitTime = Objects.requireNonNull(waitTime, "waitTime");
            return this;
        }

        /** Fixed lease of locks that do not set one; {@code null} (the default) has a watchdog renew leases. */
        public Builder leaseTime(@Nullable Duration leaseTime) {
            settings.leaseTime = leaseTime;
            return this;
        }

        /** Lease of watchdog-renewed locks, renewed every third of it (default 30 s). */
        public Builder watchdogLease(Duration watchdogLease) {
            settings.watchdogLease = Objects.requireNonNull(watchdogLease, "watchdogLease");
            return this;
        }

        /** Whether threads of this process get a contended lock in the order they asked for it (default true). */
        public Builder fair(boolean fair) {
            settings.fair = fair;
            return this;
        }

        /** How often a lock may pass straight to a waiting thread of this process before it is released (16). */
        public Builder localHandoffs(int localHandoffs) {
            settings.localHandoffs = localHandoffs;
            return this;
        }

        /** What happens to the work under a lock lost while held, when the lock's options do not say (LOG). */
        public Builder onLost(LockLostPolicy onLost) {
            settings.onLost = Objects.requireNonNull(onLost, "onLost");
            return this;
        }

        /** Pauses between attempts on a LEASE lock held elsewhere, doubling from initial to max (5 ms, 100 ms). */
        public Builder backoff(Duration initial, Duration max) {
            settings.backoff = new Backoff(initial, max);
            return this;
        }

        /**
         * Whether LEASE waiters queue on the server for a release that wakes them, the longest waiter first, rather than
         * only polling with the backoff (true). It needs the {@link #sessionDataSource} (up to 8 connections of it) and
         * one server: on a multi-writer cluster, or where the server refuses {@code GET_LOCK}, waiters poll anyway.
         */
        public Builder wakeUp(boolean wakeUp) {
            settings.wakeUp = wakeUp;
            return this;
        }

        /**
         * Where ROW and NAMED locks get the connection each holds while locked: plain connections to the same database
         * (a {@code SimpleDriverDataSource}, no pool and no auto-reconnect), never the application's pool. Without it,
         * only LEASE locks are available.
         */
        public Builder sessionDataSource(DataSource sessionDataSource) {
            settings.sessionDataSource = Objects.requireNonNull(sessionDataSource, "sessionDataSource");
            return this;
        }

        /**
         * Where LEASE writes, renewals, releases and fencing tokens run, each statement on a connection of its own in
         * autocommit: a small pool you make beside the application's. By default bizlock makes one of 4 connections: a
         * copy of the DataSource's settings when it is a HikariCP pool, else over the {@link #sessionDataSource}'s
         * plain connections; with neither, they borrow from the DataSource and a warning says so.
         */
        public Builder lockConnections(DataSource lockConnections) {
            settings.lockConnections = Objects.requireNonNull(lockConnections, "lockConnections");
            return this;
        }

        /** Size of the pool bizlock makes for LEASE writes when it is not given {@link #lockConnections} (default 4). */
        public Builder maxWriteConnections(int size) {
            settings.maxWriteConnections = ServiceSettings.atLeastOne("maxWriteConnections", size);
            return this;
        }

        /** Most connections ROW and NAMED locks may hold at once, per mode (default 10). */
        public Builder maxSessions(int maxSessions) {
            settings.maxSessions = ServiceSettings.atLeastOne("maxSessions", maxSessions);
            return this;
        }

        /** How often a held ROW or NAMED lock's session is checked (1 s, at most a third of the watchdog lease). */
        public Builder sessionHeartbeat(Duration sessionHeartbeat) {
            settings.sessionHeartbeat = ServiceSettings.positive("sessionHeartbeat", sessionHeartbeat);
            return this;
        }

        /**
         * The secret NAMED lock names are keyed by (default none), the same on every instance, so that other accounts
         * on the server cannot compute a key's lock name to probe or block it.
         */
        public Builder namedSecret(String namedSecret) {
            settings.namedSecret = ServiceSettings.notBlank("namedSecret", namedSecret);
            return this;
        }

        /**
         * Declares that every instance sends all its lock traffic to one node of a multi-writer cluster (Galera,
         * multi-primary Group Replication), which lets ROW and NAMED locks run there (default false: they are refused
         * on such a cluster, since they lock one node only). LEASE is exact on a cluster either way.
         */
        public Builder singleWriter(boolean singleWriter) {
            settings.singleWriter = singleWriter;
            return this;
        }

        /** Whether to delete rows of locks free or expired for longer than the retention (default true). */
        public Builder housekeeping(boolean housekeeping) {
            settings.housekeeping = housekeeping;
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
            settings.housekeepingInterval = Objects.requireNonNull(interval, "interval");
            settings.housekeepingRetention = Objects.requireNonNull(retention, "retention");
            settings.housekeepingBatchSize = batchSize;
            return this;
        }

        /** Adds a listener told when a held lock is lost, e.g. {@code applicationContext::publishEvent}. */
        public Builder listener(LockLostListener listener) {
            settings.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Adds an observer told what the locks do, for metrics and tracing. */
        public Builder observer(LockObserver observer) {
            settings.observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        /**
         * Adds a step {@link #build()} runs after detecting the server and before checking the lock tables: to create
         * or upgrade them (e.g. bizlock's Flyway migrations under {@link LockTables#runExclusively}), or to fail with a
         * message of one's own when they are missing.
         */
        public Builder prepareTables(Consumer<LockTables> step) {
            settings.tableSteps.add(Objects.requireNonNull(step, "step"));
            return this;
        }

        /**
         * Checks the server and the lock tables, then starts the service. A builder may build again after a failure
         * (a database that did not answer), with the same settings.
         *
         * @throws org.springframework.dao.DataAccessResourceFailureException if the database does not answer
         * @throws IllegalStateException if the server is not MySQL 8.0+ or MariaDB 10.6+, if it takes no writes (a
         *     replica), if a lock table is missing (the message holds the DDL to run), if the default mode needs a
         *     session DataSource that was not given, or is ROW or NAMED on a multi-writer cluster not declared
         *     {@link #singleWriter single-writer}
         */
        public LockService build() {
            return ServiceAssembly.assemble(settings);
        }
    }
}
