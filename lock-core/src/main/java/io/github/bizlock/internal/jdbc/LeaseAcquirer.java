package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.LeaseSql;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.TokenSql;
import java.time.Duration;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Taking a lease row for {@link LeaseDao}: the acquire and take-over statements, the token floor taken over for this
 * server's reign when it is another's, and a cluster's refusals of the moment counted as "not acquired yet".
 */
final class LeaseAcquirer {

    private final LockJdbc db;
    private final Dialect dialect;
    private final LeaseSql sql;
    private final String table;
    private final TokenFloor floor;
    private final AcquireRefusals refusals = new AcquireRefusals();

    LeaseAcquirer(LockJdbc db, Dialect dialect, LeaseSql sql, String table) {
        this.db = db;
        this.dialect = dialect;
        this.sql = sql;
        this.table = table;
        this.floor = new TokenFloor(db, new TokenSql(dialect));
    }

    /** {@link LeaseDao#tryAcquire(LockKey, String, Duration, int, boolean, long)}. */
    OptionalLong tryAcquire(
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
            return refusals.nothingIfRefusedForNow(ex);
        }
    }

    /** {@link LeaseDao#tryTakeOver}. */
    OptionalLong tryTakeOver(
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
            return refusals.nothingIfRefusedForNow(ex);
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
}
