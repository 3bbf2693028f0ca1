package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;
import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.jdbc.dialect.MigrationLeaseSql;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * Runs the lock tables' schema migration on one instance at a time, cluster-wide. Instances that start together on
 * different nodes of a Galera cluster would otherwise run the same migrations at once, since Flyway's lock
 * ({@code GET_LOCK}) is node-local there: their DDL and history rows collide and one instance fails to start with a
 * deadlock (1213). The lease is a row taken by a conditional update, which the cluster certifies, renewed while the
 * migration runs, so a crashed migrator holds up the others for one lease at most.
 */
public final class MigrationLease {

    private static final Logger log = LoggerFactory.getLogger(MigrationLease.class);

    static final Duration LEASE = Duration.ofSeconds(30);

    private final LockJdbc db;
    private final MigrationLeaseSql sql;
    private final String table;
    private final Duration renewEvery;

    public MigrationLease(LockDatabase database) {
        this(database, LEASE.dividedBy(3));
    }

    /** @param renewEvery the pause between renewals while a migration runs: a third of the lease, shorter in tests */
    MigrationLease(LockDatabase database, Duration renewEvery) {
        this.db = database.jdbc();
        this.sql = new MigrationLeaseSql(database.dialect());
        this.table = database.table();
        this.renewEvery = renewEvery;
    }

    /**
     * Runs {@code migration} while holding the lease, waiting up to {@code maxWait} for another instance's migration.
     *
     * @throws IllegalStateException if another instance held the lease for longer than {@code maxWait}
     */
    public <T> T runExclusively(Duration maxWait, Supplier<T> migration) {
        String owner = "migration:" + UUID.randomUUID();
        acquire(owner, maxWait);
        ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bizlock-migration-lease");
            thread.setDaemon(true);
            return thread;
        });
        long every = renewEvery.toMillis();
        renewals.scheduleWithFixedDelay(() -> renew(owner), every, every, TimeUnit.MILLISECONDS);
        try {
            return migration.get();
        } finally {
            renewals.shutdownNow();
            try {
                db.update(sql.release(), bytes(owner));
            } catch (DataAccessException ex) {
                log.warn(
                        "bizlock could not free the migration lease of {}_miglock; other instances wait until it ends"
                                + " ({} at most)",
                        table,
                        LEASE,
                        ex);
            }
        }
    }

    private void acquire(String owner, Duration maxWait) {
        db.update(sql.createTable());
        db.update(sql.createRow());
        long deadline = System.nanoTime() + maxWait.toNanos();
        for (int attempt = 1; ; attempt++) {
            try {
                if (db.update(sql.acquire(), bytes(owner), micros(LEASE)) == 1) {
                    return;
                }
            } catch (DataAccessException ex) {
                // Another node's instance took it at the same moment: the cluster rolled this attempt back.
                if (!ServerErrors.isTransient(ex)) {
                    throw ex;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("bizlock waited " + maxWait + " for another instance to finish"
                        + " migrating the lock tables, and it still holds the migration lease (" + holder()
                        + "). If no instance is migrating, free it with: UPDATE " + table + "_miglock SET owner_id ="
                        + " NULL WHERE id = 1");
            }
            sleep(ThreadLocalRandom.current().nextLong(50, 50L + Math.min(400, 25L * attempt)));
        }
    }

    private void renew(String owner) {
        try {
            db.update(sql.renew(), micros(LEASE), bytes(owner));
        } catch (RuntimeException ex) {
            log.warn("bizlock could not renew the migration lease of {}_miglock", table, ex);
        }
    }

    private String holder() {
        List<String> rows = db.jdbc()
                .query(
                        sql.holder(),
                        (rs, row) -> rs.getBytes(1) == null
                                ? "free"
                                : new String(rs.getBytes(1), StandardCharsets.UTF_8) + ", lease ends in "
                                        + rs.getLong(2) + " s");
        return rows.isEmpty() ? "no lease row" : rows.get(0);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the migration lease", ex);
        }
    }
}
