package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;
import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.ReadLeaseSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.springframework.dao.DataAccessException;

/**
 * The DAO of LEASE read locks: one read lease per key and instance in {@code <table>_reader}, each a transaction that
 * first locks the key's lock row ({@link ReadLeaseSql}). An instance renews and ends only its own leases, never
 * another's: a crashed instance's lease stops keeping writers out when it ends.
 */
public final class ReadLeaseDao {

    /** Keys renewed in one transaction. */
    private static final int MAX_KEYS_PER_STATEMENT = 100;

    /** What {@link #begin} answers for a key without a row: no token is negative. */
    private static final OptionalLong NO_ROW = OptionalLong.of(-1);

    private final LockJdbc db;
    private final ReadLeaseSql sql;
    private final AcquireRefusals refusals = new AcquireRefusals();

    public ReadLeaseDao(LockDatabase database) {
        this.db = database.jdbc();
        this.sql = new ReadLeaseSql(database.dialect());
    }

    /** A read lease of this owner: which key, and which of the owner's grants of it. */
    public record ReadLease(LockKey key, long grantId) {}

    /**
     * Begins this owner's read lease of the key if no writer holds the lock and none waits for its readers.
     *
     * @param downgrade whether the asking thread holds the key's write lock (LEASE, this owner): then a read lease
     *     begins whatever the row says of its writer
     * @return the lock's fencing token (the last writer's) if the read lease began, empty if a writer holds the lock
     *     or waits for it
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public OptionalLong tryBegin(
            LockKey key, String owner, long grantId, Duration lease, boolean downgrade, long deadlineNanos) {
        try {
            OptionalLong token = begin(key, owner, grantId, lease, downgrade, deadlineNanos);
            if (token.equals(NO_ROW)) {
                // The key has no row yet: a free one is created on its own (an insert into the gap the locking read
                // left would deadlock with other first readers), then locked.
                db.update(deadlineNanos, sql.createKey(), key.name(), key.key());
                token = begin(key, owner, grantId, lease, downgrade, deadlineNanos);
            }
            return token.equals(NO_ROW) ? OptionalLong.empty() : token;
        } catch (DataAccessException ex) {
            return refusals.nothingIfRefusedForNow(ex);
        }
    }

    /** The token, empty when a writer holds or waits, {@link #NO_ROW} when the key has no row. */
    private OptionalLong begin(
            LockKey key, String owner, long grantId, Duration lease, boolean downgrade, long deadlineNanos) {
        long leaseMicros = micros(lease);
        return db.inTransaction(deadlineNanos, connection -> {
            long token;
            try (PreparedStatement lock = connection.prepareStatement(sql.lockKeyForRead())) {
                bind(lock, downgrade, bytes(owner), downgrade, bytes(key.name()), bytes(key.key()));
                try (ResultSet row = lock.executeQuery()) {
                    if (!row.next()) {
                        return NO_ROW;
                    }
                    if (!row.getBoolean(2)) {
                        return OptionalLong.empty();
                    }
                    token = row.getLong(1);
                }
            }
            execute(
                    connection,
                    sql.beginRead(),
                    bytes(key.name()),
                    bytes(key.key()),
                    bytes(owner),
                    grantId,
                    leaseMicros);
            execute(connection, sql.extendReadUntil(1), leaseMicros, bytes(key.name()), bytes(key.key()));
            return OptionalLong.of(token);
        });
    }

    /**
     * Extends the given read leases of this owner that are still live, and the keys' {@code read_until} with them.
     *
     * @return the leases that had ended: a writer may have taken their keys since
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public Set<ReadLease> renew(String owner, Duration lease, List<ReadLease> leases, long deadlineNanos) {
        Set<ReadLease> gone = new HashSet<>();
        for (int from = 0; from < leases.size(); from += MAX_KEYS_PER_STATEMENT) {
            List<ReadLease> batch = leases.subList(from, Math.min(leases.size(), from + MAX_KEYS_PER_STATEMENT));
            gone.addAll(renewBatch(owner, micros(lease), batch, deadlineNanos));
        }
        return gone;
    }

    private Set<ReadLease> renewBatch(String owner, long leaseMicros, List<ReadLease> leases, long deadlineNanos) {
        return db.inTransaction(deadlineNanos, connection -> {
            List<Object> keys = new ArrayList<>();
            List<Object> grants = new ArrayList<>();
            for (ReadLease lease : leases) {
                keys.add(bytes(lease.key().name()));
                keys.add(bytes(lease.key().key()));
                grants.add(bytes(lease.key().name()));
                grants.add(bytes(lease.key().key()));
                grants.add(lease.grantId());
            }
            try (PreparedStatement lock = connection.prepareStatement(sql.lockKeys(leases.size()))) {
                bind(lock, keys.toArray());
                lock.executeQuery().close();
            }
            List<Object> params = new ArrayList<>(List.of(leaseMicros, bytes(owner)));
            params.addAll(grants);
            int renewed = execute(connection, sql.renew(leases.size()), params.toArray());
            Set<ReadLease> gone = new HashSet<>();
            if (renewed < leases.size()) {
                Set<ReadLease> live = new HashSet<>();
                try (PreparedStatement held = connection.prepareStatement(sql.stillHeld(leases.size()))) {
                    bind(held, params.subList(1, params.size()).toArray());
                    try (ResultSet rows = held.executeQuery()) {
                        while (rows.next()) {
                            live.add(new ReadLease(
                                    new LockKey(
                                            Objects.requireNonNull(LockRow.text(rows, 1)),
                                            Objects.requireNonNull(LockRow.text(rows, 2))),
                                    rows.getLong(3)));
                        }
                    }
                }
                leases.stream().filter(lease -> !live.contains(lease)).forEach(gone::add);
            }
            List<Object> extend = new ArrayList<>(List.of(leaseMicros));
            extend.addAll(keys);
            execute(connection, sql.extendReadUntil(leases.size()), extend.toArray());
            return gone;
        });
    }

    /**
     * Ends this owner's read lease and lowers the key's {@code read_until} to the end of the other leases.
     *
     * @return whether the lease was still live (false: it had ended, and a writer may have taken the key since)
     * @throws DataAccessException if the database did not answer by the deadline, or failed
     */
    public boolean end(ReadLease lease, String owner, long deadlineNanos) {
        LockKey key = lease.key();
        return db.inTransaction(deadlineNanos, connection -> {
            try (PreparedStatement lock = connection.prepareStatement(sql.lockKeys(1))) {
                bind(lock, bytes(key.name()), bytes(key.key()));
                lock.executeQuery().close();
            }
            Object[] grant = {bytes(key.name()), bytes(key.key()), bytes(owner), lease.grantId()};
            boolean live = execute(connection, sql.endRead(), grant) == 1;
            if (!live) {
                execute(connection, sql.endExpiredRead(), grant);
            }
            execute(
                    connection,
                    sql.recountReadUntil(),
                    bytes(key.name()),
                    bytes(key.key()),
                    bytes(key.name()),
                    bytes(key.key()));
            return live;
        });
    }

    private static int execute(Connection connection, String statement, Object... params) throws SQLException {
        try (PreparedStatement prepared = connection.prepareStatement(statement)) {
            bind(prepared, params);
            return prepared.executeUpdate();
        }
    }

    private static void bind(PreparedStatement statement, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            statement.setObject(i + 1, params[i]);
        }
    }
}
