package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;
import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.LeaseSql;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The LEASE table's DAO: acquiring ({@link LeaseAcquirer}), renewing, releasing and reading lease rows, every write one
 * statement in autocommit on a connection of its own ({@link LockJdbc}). The other lock tables' DAOs are its peers
 * ({@link LockDaos}).
 */
public final class LeaseDao {

    /** Locks named in one release-all statement, as in one renewal batch. */
    private static final int MAX_KEYS_PER_STATEMENT = 100;

    private final LockJdbc db;
    private final JdbcTemplate jdbc;
    private final LeaseSql sql;
    private final LeaseAcquirer acquirer;

    public LeaseDao(LockDatabase database) {
        this.db = database.jdbc();
        this.jdbc = db.jdbc();
        this.sql = new LeaseSql(database.dialect());
        this.acquirer = new LeaseAcquirer(db, database.dialect(), sql, database.table());
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
        return acquirer.tryAcquire(key, owner, lease, tokens, reclaimOwn, deadlineNanos);
    }

    /**
     * Takes the lock for a waiter queued behind another process's wake lock, without it: only if its lease ended, or
     * if it has been free for longer than {@code freeFor}. A row freed just now is left to the waiter its release woke.
     *
     * @return the highest reserved token, or empty if the row is held, was freed just now, or does not exist yet
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public OptionalLong tryTakeOver(
            LockKey key, String owner, Duration lease, int tokens, Duration freeFor, long deadlineNanos) {
        return acquirer.tryTakeOver(key, owner, lease, tokens, freeFor, deadlineNanos);
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
                sql.stillHeld(locks.size()),
                (rs, row) -> new HeldToken(new LockKey(LockRow.text(rs, 1), LockRow.text(rs, 2)), rs.getLong(3)),
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

    /**
     * Marks that a writer waits for the lock's readers, for {@code intent}: new readers wait meanwhile. Changes
     * nothing where no reader lease runs.
     *
     * @return whether readers held the lock, so the intent was marked
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public boolean markWriteIntent(LockKey key, Duration intent, long deadlineNanos) {
        return db.update(deadlineNanos, sql.markWriteIntent(), micros(intent), bytes(key.name()), bytes(key.key()))
                == 1;
    }

    /**
     * Ends the intent of writers waiting for the lock's readers, once one of them holds it; a writer still waiting
     * marks it again at its next attempt.
     */
    public void clearWriteIntent(LockKey key, long deadlineNanos) {
        db.update(deadlineNanos, sql.clearWriteIntent(), bytes(key.name()), bytes(key.key()));
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
        return db.queryCausal(deadlineNanos, sql.find(), LockRow.MAPPER, bytes(key.name()), bytes(key.key())).stream()
                .findFirst();
    }

    /** Locks held now, by the database's clock, oldest first. */
    public List<LockRow> findHeld(int limit) {
        return db.guarded(() -> jdbc.query(sql.findHeld(), LockRow.MAPPER, limit));
    }

    /** The database's current UTC time. */
    public LocalDateTime databaseTime() {
        return db.guarded(() -> jdbc.queryForObject(sql.currentTime(), LocalDateTime.class));
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
}
