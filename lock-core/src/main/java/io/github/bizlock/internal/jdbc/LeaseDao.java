package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;
import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The LEASE table's DAO: acquiring, renewing, releasing and reading lease rows, every write one statement in autocommit
 * on a connection of its own ({@link LockJdbc}). It builds the other lock tables' DAOs on the same data source and
 * plumbing, so that the one object the auto-configuration registers reaches them all: {@link #tokens()},
 * {@link #modes()}, {@link #schema()} and {@link #housekeeping()}.
 */
public final class LeaseDao {

    /** Locks named in one release-all statement, as in one renewal batch. */
    private static final int MAX_KEYS_PER_STATEMENT = 100;

    private final LockJdbc db;
    private final JdbcTemplate jdbc;
    private final Dialect dialect;
    private final LeaseSql sql;
    private final String table;
    private final TokenFloor floor;
    private final TokenIssuer tokens;
    private final ModeBindingDao modes;
    private final LockSchema schema;
    private final HousekeepingDao housekeeping;
    private final MigrationLease migrationLease;
    private final Refusals refusals = new Refusals();

    /** With every statement on {@code dataSource}: lock writes borrow from its pool. */
    public LeaseDao(
            DataSource dataSource, PlatformTransactionManager transactionManager, Dialect dialect, String table) {
        this(dataSource, dataSource, transactionManager, dialect, table);
    }

    /**
     * @param dataSource the lock DataSource: schema checks, housekeeping and the actuator's reads
     * @param lockConnections where lock writes (acquire, renew, release, fencing tokens) and the reads that decide
     *     whether a lock is held run, each on a connection of its own in autocommit: a small pool of bizlock's own with
     *     the lock DataSource's settings, so that an application holding all its connections cannot starve them
     * @param transactionManager for housekeeping's transactions on {@code dataSource}
     */
    public LeaseDao(
            DataSource dataSource,
            DataSource lockConnections,
            PlatformTransactionManager transactionManager,
            Dialect dialect,
            String table) {
        this.table = TableName.validate(table);
        dialect.topology().requireWritable();
        this.db = new LockJdbc(dataSource, lockConnections, this.table);
        this.jdbc = db.jdbc();
        this.dialect = dialect;
        this.sql = new LeaseSql(dialect);
        this.floor = new TokenFloor(db, dialect);
        this.tokens = new TokenIssuer(db, dialect, this.table, floor);
        this.modes = new ModeBindingDao(db, dialect, this.table);
        this.schema = new LockSchema(db, dialect, this.table);
        this.housekeeping = new HousekeepingDao(db, transactionManager, dialect);
        this.migrationLease = new MigrationLease(db, dialect, this.table);
    }

    public Dialect dialect() {
        return dialect;
    }

    public String table() {
        return table;
    }

    /** The fencing tokens of ROW and NAMED locks. */
    public TokenIssuer tokens() {
        return tokens;
    }

    /** Which mode each lock name is bound to. */
    public ModeBindingDao modes() {
        return modes;
    }

    /** Whether the lock tables exist. */
    public LockSchema schema() {
        return schema;
    }

    /** The lease that lets one instance at a time, cluster-wide, migrate the lock tables. */
    public MigrationLease migrationLease() {
        return migrationLease;
    }

    /** The deletion of rows unused for longer than a retention, in every lock table. */
    public HousekeepingDao housekeeping() {
        return housekeeping;
    }

    /**
     * Takes the lock if it is free, its lease has ended, or it has never been taken, and reserves {@code tokens}
     * fencing tokens: the row's token rises by that many, so every later acquirer's token is above all of them.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the attempt must have ended, whatever the database does
     * @return the highest reserved token (the one written in the row), or empty if another owner holds the lock
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public OptionalLong tryAcquire(LockKey key, String owner, Duration lease, int tokens, long deadlineNanos) {
        return tryAcquire(key, owner, lease, tokens, false, deadlineNanos);
    }

    /**
     * {@link #tryAcquire(LockKey, String, Duration, int, long)}, optionally also taking the lock over from this same
     * owner: for an attempt after one whose connection failed under it, which may have taken the lock without an
     * answer.
     *
     * @param reclaimOwn whether a row held by {@code owner} counts as free; only when this process holds no grant of
     *     the lock
     */
    public OptionalLong tryAcquire(
            LockKey key, String owner, Duration lease, int tokens, boolean reclaimOwn, long deadlineNanos) {
        TokenIssuer.requirePositive(tokens);
        // A deployment not read at start is read again before a lock: a cluster's nodes issue tokens as one.
        dialect.currentTopology();
        try {
            return acquire(key, owner, lease, tokens, reclaimOwn, deadlineNanos);
        } catch (DataAccessException ex) {
            // On a cluster a conflicting write elsewhere rolls the attempt back (certification failure, 1213), and a
            // node leaving or rejoining the cluster refuses writes (1047, 1180): the lock is not taken, and a later
            // attempt may get it. Nothing was written, so it is "not acquired yet", never an error.
            if (!LockJdbc.refusedForNow(ex)) {
                throw ex;
            }
            refusals.report(ex);
            return OptionalLong.empty();
        }
    }

    private OptionalLong acquire(
            LockKey key, String owner, Duration lease, int tokens, boolean reclaimOwn, long deadlineNanos) {
        long leaseMicros = micros(lease);
        OptionalLong token = acquireOnce(key, owner, leaseMicros, tokens, reclaimOwn, deadlineNanos);
        if (token == null) {
            // The floor is another reign's (a failover, a restart): take it over for this server's reign, then try
            // again from the start, since a free row could not be taken either.
            floor.takeOver(deadlineNanos);
            token = acquireOnce(key, owner, leaseMicros, tokens, reclaimOwn, deadlineNanos);
        }
        if (token == null) {
            throw LockSchema.missingFloor(table);
        }
        return token;
    }

    /** The token, empty when another owner holds the lock, null when nothing was issued: the floor is not ours. */
    private @Nullable OptionalLong acquireOnce(
            LockKey key, String owner, long leaseMicros, int tokens, boolean reclaimOwn, long deadlineNanos) {
        // Two transactions, never one: an update that finds no row leaves a gap lock, and an insert into that gap in
        // the same transaction deadlocks with every other first-time acquirer of the key.
        OptionalLong token = reclaimOwn
                ? db.updateReturningToken(
                        deadlineNanos,
                        sql.acquireExistingOrOwn(),
                        owner,
                        tokens,
                        leaseMicros,
                        key.name(),
                        key.key(),
                        owner)
                : db.updateReturningToken(
                        deadlineNanos, sql.acquireExisting(), owner, tokens, leaseMicros, key.name(), key.key());
        if (token.isPresent()) {
            return token;
        }
        try {
            token = db.updateReturningToken(
                    deadlineNanos, sql.acquireNew(), key.name(), key.key(), owner, tokens, leaseMicros);
        } catch (DataAccessException ex) {
            if (LockJdbc.errorCode(ex) == LockJdbc.ER_DUP_ENTRY) {
                return OptionalLong.empty(); // the row exists and is held: another owner has the lock
            }
            throw ex;
        }
        // No row inserted and no duplicate: the floor is another reign's, so neither statement could issue.
        return token.isPresent() ? token : null;
    }

    /**
     * Extends the lease of locks this owner holds, then reads which of them it no longer holds if any were not
     * extended: both statements ended by {@code deadlineNanos} ({@link System#nanoTime()}), so that a renewal stuck
     * on a dead connection is given up and tried again on another.
     *
     * @return the tokens (by key) that this owner no longer holds
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public Set<LockKey> renew(String owner, Duration lease, List<HeldToken> locks, long deadlineNanos) {
        if (locks.isEmpty()) {
            return Set.of();
        }
        List<Object> params = new ArrayList<>();
        params.add(micros(lease));
        params.add(bytes(owner));
        addKeys(params, locks);
        int renewed = db.update(deadlineNanos, sql.renew(locks.size()), params.toArray());
        if (renewed == locks.size()) {
            return Set.of();
        }
        List<Object> queryParams = params.subList(1, params.size());
        Set<HeldToken> held = new HashSet<>(db.queryCausal(
                deadlineNanos,
                galera(),
                sql.stillHeld(locks.size()),
                (rs, row) -> new HeldToken(new LockKey(text(rs, 1), text(rs, 2)), rs.getLong(3)),
                queryParams.toArray()));
        Set<LockKey> gone = new HashSet<>();
        for (HeldToken lock : locks) {
            if (!held.contains(lock)) {
                gone.add(lock.key());
            }
        }
        return gone;
    }

    /**
     * Frees those of the locks that this owner still holds with these tokens, up to 100 per statement.
     *
     * @return how many it held
     */
    public int releaseAll(String owner, List<HeldToken> locks) {
        // Bounded like a release: a shutdown must not wait on an unreachable database, whose locks free with their
        // leases.
        long deadline = System.nanoTime() + LockEngine.RELEASE_TIMEOUT.toNanos();
        int released = 0;
        for (int from = 0; from < locks.size(); from += MAX_KEYS_PER_STATEMENT) {
            List<HeldToken> batch = locks.subList(from, Math.min(locks.size(), from + MAX_KEYS_PER_STATEMENT));
            List<Object> params = new ArrayList<>();
            params.add(bytes(owner));
            addKeys(params, batch);
            released += db.update(deadline, sql.releaseAll(batch.size()), params.toArray());
        }
        return released;
    }

    /**
     * Frees the lock if this owner and token still hold it, waiting for the database at most
     * {@link LockEngine#RELEASE_TIMEOUT}.
     *
     * @return whether they held it
     */
    public boolean release(LockKey key, String owner, long fencingToken) {
        return release(key, owner, fencingToken, System.nanoTime() + LockEngine.RELEASE_TIMEOUT.toNanos());
    }

    /**
     * Frees the lock if this owner holds it with any token: only for a key none of whose grants this owner holds (an
     * acquisition that failed without an answer and committed later). Bounded like a release.
     *
     * @return whether this owner held it
     */
    public boolean releaseStale(LockKey key, String owner) {
        long deadline = System.nanoTime() + LockEngine.RELEASE_TIMEOUT.toNanos();
        return db.update(deadline, sql.releaseStale(), bytes(key.name()), bytes(key.key()), bytes(owner)) == 1;
    }

    /**
     * Frees the lock if this owner and token still hold it.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the statement must have ended, whatever the database does
     * @return whether they held it
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public boolean release(LockKey key, String owner, long fencingToken, long deadlineNanos) {
        return db.update(deadlineNanos, sql.release(), bytes(key.name()), bytes(key.key()), bytes(owner), fencingToken)
                == 1;
    }

    /**
     * Frees a LEASE lock whoever holds it (an operator's force release), waiting for the database at most
     * {@link LockEngine#RELEASE_TIMEOUT}. The former holder finds out at its next renewal or unlock and reports the lock
     * lost.
     *
     * @return whether an owner held the lock
     */
    public boolean forceRelease(LockKey key) {
        long deadline = System.nanoTime() + LockEngine.RELEASE_TIMEOUT.toNanos();
        return db.update(deadline, sql.forceRelease(), bytes(key.name()), bytes(key.key())) == 1;
    }

    /** The lock's row, read within {@link LockEngine#RELEASE_TIMEOUT}. */
    public Optional<LockRow> find(LockKey key) {
        return find(key, System.nanoTime() + LockEngine.RELEASE_TIMEOUT.toNanos());
    }

    /**
     * The lock's row, read on a lock connection as the statements that decide whether a lock is held are.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the query must have ended, whatever the database does
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public Optional<LockRow> find(LockKey key, long deadlineNanos) {
        return db
                .queryCausal(deadlineNanos, galera(), sql.find(), LOCK_ROW, bytes(key.name()), bytes(key.key()))
                .stream()
                .findFirst();
    }

    private boolean galera() {
        return dialect.topology().galera();
    }

    /** Locks held now, by the database's clock, oldest first. */
    public List<LockRow> findHeld(int limit) {
        return db.guarded(() -> jdbc.query(sql.findHeld(), LOCK_ROW, limit));
    }

    /** The database's current UTC time. */
    public LocalDateTime databaseTime() {
        return db.guarded(() -> jdbc.queryForObject(sql.currentTime(), LocalDateTime.class));
    }

    /** Logs acquisitions the database refused for now, at most once every 10 s, so a node out of its cluster shows. */
    private static final class Refusals {

        private static final Logger log = LoggerFactory.getLogger(LeaseDao.class);
        private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

        private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - EVERY_NANOS);
        private final AtomicLong since = new AtomicLong();

        void report(DataAccessException ex) {
            long count = since.incrementAndGet();
            long last = lastLogged.get();
            long now = System.nanoTime();
            if (now - last >= EVERY_NANOS && lastLogged.compareAndSet(last, now)) {
                since.addAndGet(-count);
                log.warn(
                        "bizlock: the database refused {} lock acquisition(s) for now and they will be tried again;"
                                + " the last: {} (1213 and 3101 are write conflicts with another node or session; 1047 and 1180"
                                + " mean the node is not part of the cluster's primary component: check the node, or use"
                                + " a JDBC URL that fails over to another)",
                        count,
                        ex.getMostSpecificCause().getMessage());
            }
        }
    }

    /** A lock and the token it was acquired with. */
    public record HeldToken(LockKey key, long fencingToken) {}

    private static void addKeys(List<Object> params, List<HeldToken> locks) {
        for (HeldToken lock : locks) {
            params.add(bytes(lock.key().name()));
            params.add(bytes(lock.key().key()));
            params.add(lock.fencingToken());
        }
    }

    private static @Nullable String text(ResultSet rs, int column) throws SQLException {
        byte[] value = rs.getBytes(column);
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    private static final RowMapper<LockRow> LOCK_ROW = (rs, row) -> new LockRow(
            Objects.requireNonNull(text(rs, 1)),
            Objects.requireNonNull(text(rs, 2)),
            text(rs, 3),
            rs.getLong(4),
            rs.getObject(5, LocalDateTime.class),
            rs.getObject(6, LocalDateTime.class),
            rs.getBoolean(7));
}
