package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;
import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.LeaseSql;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.TokenSql;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The LEASE table's DAO: acquiring, renewing, releasing and reading lease rows, every write one statement in autocommit
 * on a connection of its own ({@link LockJdbc}). The other lock tables' DAOs are its peers ({@link LockDaos}).
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
    private final AcquireRefusals refusals = new AcquireRefusals();

    public LeaseDao(LockDatabase database) {
        this.db = database.jdbc();
        this.jdbc = db.jdbc();
        this.dialect = database.dialect();
        this.table = database.table();
        this.sql = new LeaseSql(dialect);
        this.floor = new TokenFloor(db, new TokenSql(dialect));
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
            if (!ServerErrors.refusedForNow(ex)) {
                throw ex;
            }
            refusals.report(ex);
            return OptionalLong.empty();
        }
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
        TokenIssuer.requirePositive(tokens);
        try {
            // A floor of another reign issues nothing here; the waiter's next attempt at the row takes it over.
            return db.updateReturningToken(
                    deadlineNanos,
                    sql.takeOver(),
                    owner,
                    tokens,
                    micros(lease),
                    key.name(),
                    key.key(),
                    micros(freeFor));
        } catch (DataAccessException ex) {
            if (!ServerErrors.refusedForNow(ex)) {
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
            if (ServerErrors.duplicateKey(ex)) {
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
