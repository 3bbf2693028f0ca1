package io.github.bizlock.internal.jdbc;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The only class that runs the lease table's SQL. Every write is one statement in autocommit on a pool connection of
 * its own, never the one of a transaction the caller has open: each commits or fails on its own,
 * like a {@code REQUIRES_NEW} transaction, without the three round trips of {@code SET autocommit=0}, {@code COMMIT},
 * {@code SET autocommit=1} around it, and an insert and an update of the unique key never share a transaction.
 * Housekeeping, which reads then deletes, runs in a {@code REQUIRES_NEW} transaction. Deadlocks and lock-wait
 * timeouts (1213, 1205) are retried a few times; a missing table fails with the DDL to run.
 */
public final class BizLockDao {

    /** How often a write is tried when the server reports a deadlock or lock-wait timeout. */
    static final int MAX_ATTEMPTS = 4;

    private static final int ER_DUP_ENTRY = 1062;
    private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    private static final int ER_LOCK_DEADLOCK = 1213;
    private static final int ER_NO_SUCH_TABLE = 1146;

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final DataSource writeScope;
    private final JdbcTemplate writeJdbc;
    private final TransactionTemplate purges;
    private final Dialect dialect;
    private final String table;

    public BizLockDao(
            DataSource dataSource, PlatformTransactionManager transactionManager, Dialect dialect, String table) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        // Writes run on a connection of their own, bound under this key for the write only: never the connection of a
        // transaction (or other scope) the caller has open on the data source, whatever the transaction settings.
        this.writeScope = new DelegatingDataSource(dataSource);
        this.writeJdbc = new JdbcTemplate(writeScope);
        // Housekeeping's locking read must lock only the rows it deletes, never gaps that new locks insert into.
        this.purges = new TransactionTemplate(transactionManager);
        this.purges.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.purges.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.purges.setName("bizlock-housekeeping");
        this.dialect = dialect;
        this.table = TableName.validate(table);
    }

    public Dialect dialect() {
        return dialect;
    }

    public String table() {
        return table;
    }

    /**
     * Takes the lock if it is free, its lease has ended, or it has never been taken, and reserves {@code tokens}
     * fencing tokens: the row's token rises by that many, so every later acquirer's token is above all of them.
     *
     * @return the highest reserved token (the one written in the row), or empty if another owner holds the lock
     */
    public OptionalLong tryAcquire(LockKey key, String owner, Duration lease, int tokens) {
        requirePositive(tokens);
        long leaseMicros = micros(lease);
        // Two transactions, never one: an update that finds no row leaves a gap lock, and an insert into that gap in
        // the same transaction deadlocks with every other first-time acquirer of the key.
        OptionalLong token = write(() ->
                updateReturningToken(dialect.acquireExisting(), owner, tokens, leaseMicros, key.name(), key.key()));
        if (token.isPresent()) {
            return token;
        }
        try {
            token = write(() ->
                    updateReturningToken(dialect.acquireNew(), key.name(), key.key(), owner, tokens, leaseMicros));
        } catch (DataAccessException ex) {
            if (errorCode(ex) == ER_DUP_ENTRY) {
                return OptionalLong.empty(); // the row exists and is held: another owner has the lock
            }
            throw ex;
        }
        if (token.isEmpty()) {
            throw missingFloor();
        }
        return token;
    }

    /**
     * Issues the next {@code count} fencing tokens of a ROW or NAMED lock in a statement that commits on its own, so
     * they stay issued whatever becomes of the lock's session or the caller's transaction.
     *
     * @return the highest of them; all are above every token issued for this lock and mode before
     */
    public long issueTokens(LockKey key, LockMode mode, int count) {
        requirePositive(count);
        return write(() -> updateReturningToken(dialect.issueToken(), key.name(), key.key(), mode.name(), count, count))
                .orElseThrow(() -> missingFloor());
    }

    private static void requirePositive(int tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException("At least one fencing token must be reserved, asked for " + tokens);
        }
    }

    /** The last fencing token issued for a ROW or NAMED lock, if any was. */
    public OptionalLong lastToken(LockKey key, LockMode mode) {
        List<Long> tokens = guarded(() -> jdbc.queryForList(
                dialect.lastToken(), Long.class, bytes(key.name()), bytes(key.key()), bytes(mode.name())));
        return tokens.isEmpty() ? OptionalLong.empty() : OptionalLong.of(tokens.get(0));
    }

    /** The error for a token floor row that is gone, with the statement that restores it. */
    public IllegalStateException missingFloor() {
        return new IllegalStateException("The row of " + table + "_token_floor is missing, so no fencing token"
                + " can be issued; restore it with: INSERT INTO " + table
                + "_token_floor (id, floor_token) VALUES (1, <a value above every token ever issued>)");
    }

    /**
     * Extends the lease of locks this owner holds.
     *
     * @return the tokens (by key) that this owner no longer holds
     */
    public Set<LockKey> renew(String owner, Duration lease, List<HeldToken> locks) {
        if (locks.isEmpty()) {
            return Set.of();
        }
        List<Object> params = new ArrayList<>();
        params.add(micros(lease));
        params.add(bytes(owner));
        addKeys(params, locks);
        int renewed = write(() -> writeJdbc.update(dialect.renew(locks.size()), params.toArray()));
        if (renewed == locks.size()) {
            return Set.of();
        }
        List<Object> queryParams = params.subList(1, params.size());
        Set<HeldToken> held = new HashSet<>(jdbc.query(
                dialect.stillHeld(locks.size()),
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
     * Frees the lock if this owner and token still hold it.
     *
     * @return whether they held it
     */
    public boolean release(LockKey key, String owner, long fencingToken) {
        return write(() -> writeJdbc.update(
                        dialect.release(), bytes(key.name()), bytes(key.key()), bytes(owner), fencingToken))
                == 1;
    }

    /**
     * Frees a LEASE lock whoever holds it (an operator's force release). The former holder finds out at its next
     * renewal or unlock and reports the lock lost.
     *
     * @return whether an owner held the lock
     */
    public boolean forceRelease(LockKey key) {
        return write(() -> writeJdbc.update(dialect.forceRelease(), bytes(key.name()), bytes(key.key()))) == 1;
    }

    /** The lock tables the migrations create that are missing from the schema; empty when all are there. */
    public List<String> missingTables() {
        Set<String> existing = new HashSet<>(jdbc.queryForList(dialect.existingTables(), String.class));
        List<String> missing = new ArrayList<>();
        for (String expected : List.of(table, table + "_token_floor", table + "_row", table + "_token")) {
            if (existing.stream().noneMatch(expected::equalsIgnoreCase)) {
                missing.add(expected);
            }
        }
        return missing;
    }

    public Optional<LockRow> find(LockKey key) {
        return guarded(() -> jdbc.query(dialect.find(), LOCK_ROW, bytes(key.name()), bytes(key.key())).stream()
                .findFirst());
    }

    /** Locks held now, by the database's clock, oldest first. */
    public List<LockRow> findHeld(int limit) {
        return guarded(() -> jdbc.query(dialect.findHeld(), LOCK_ROW, limit));
    }

    /**
     * Deletes up to {@code batchSize} rows that have been free, or expired, for longer than {@code retention}, after
     * raising the token floor above their tokens, so a lock created again later still gets a higher token.
     *
     * @return the number of rows deleted
     */
    public int purge(Duration retention, int batchSize) {
        long retentionMicros = micros(retention);
        return deleteUnderRaisedFloor(
                () -> jdbc.queryForObject(dialect.purgeableMaxToken(), Long.class, retentionMicros, retentionMicros),
                floor -> writeJdbc.update(dialect.purge(), floor, retentionMicros, retentionMicros, batchSize));
    }

    /**
     * Deletes up to {@code batchSize} ROW/NAMED token rows unused for longer than {@code retention}, and up to
     * {@code batchSize} ROW lock rows created longer ago than that which nobody holds right now. Token rows go the way
     * lease rows do (the floor is raised above their tokens first); a held lock row is skipped, not waited for, and a
     * free one deleted is simply created again by its next acquirer.
     *
     * @return the number of rows deleted
     */
    public int purgeSessionTables(Duration retention, int batchSize) {
        long retentionMicros = micros(retention);
        int deleted = deleteUnderRaisedFloor(
                () -> jdbc.queryForObject(dialect.purgeableMaxSessionToken(), Long.class, retentionMicros),
                floor -> writeJdbc.update(dialect.purgeSessionTokens(), floor, retentionMicros, batchSize));
        deleted += retrying(() -> purges.execute(status -> {
            List<Object[]> free = jdbc.query(
                    dialect.purgeableLockRows(),
                    (rs, row) -> new Object[] {rs.getBytes(1), rs.getBytes(2)},
                    retentionMicros,
                    batchSize);
            if (!free.isEmpty()) {
                jdbc.batchUpdate(dialect.deleteLockRow(), free);
            }
            return free.size();
        }));
        return deleted;
    }

    /**
     * The token-floor scheme of every purge: raise the floor to the highest token among the rows that may go, commit,
     * then delete only rows whose token the floor covers. Committed before the delete, so an insert that finds a row
     * gone always reads the raised floor, and a lock created again continues above every token it was given.
     *
     * @param purgeableMax the highest token among the rows that may be deleted (0 or null when there are none)
     * @param deleteUpTo deletes the rows whose token is at most the floor it is given; returns how many
     */
    private int deleteUnderRaisedFloor(Supplier<@Nullable Long> purgeableMax, LongFunction<Integer> deleteUpTo) {
        Long floor = guarded(purgeableMax);
        if (floor == null || floor == 0) {
            return 0;
        }
        write(() -> writeJdbc.update(dialect.raiseTokenFloor(), floor));
        return write(() -> deleteUpTo.apply(floor));
    }

    /** The database's current UTC time. */
    public LocalDateTime databaseTime() {
        return guarded(() -> jdbc.queryForObject(dialect.currentTime(), LocalDateTime.class));
    }

    /**
     * Checks that both lock tables exist.
     *
     * @throws IllegalStateException with the DDL to run when one is missing
     */
    public void verifySchema() {
        guarded(() -> jdbc.queryForObject(dialect.probeTables(), Integer.class));
    }

    /** A lock and the token it was acquired with. */
    public record HeldToken(LockKey key, long fencingToken) {}

    private OptionalLong updateReturningToken(String sql, Object... params) {
        return Objects.requireNonNull(writeJdbc.execute(
                connection -> {
                    PreparedStatement statement = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS);
                    bind(statement, params);
                    return statement;
                },
                (PreparedStatement statement) -> executeReturningToken(statement)));
    }

    /**
     * Runs a statement prepared with {@link Statement#RETURN_GENERATED_KEYS} that sets a fencing token with
     * {@code LAST_INSERT_ID(expr)}, and reads the token from its generated key.
     *
     * @return the token, or empty if the statement changed no row
     */
    public static OptionalLong executeReturningToken(PreparedStatement statement) throws SQLException {
        // 1 for an insert or update; 2 for the update branch of INSERT ... ON DUPLICATE KEY UPDATE.
        if (statement.executeUpdate() == 0) {
            return OptionalLong.empty();
        }
        try (ResultSet keys = statement.getGeneratedKeys()) {
            if (!keys.next() || keys.getLong(1) <= 0) {
                throw new IllegalStateException("The server did not return the fencing token set by LAST_INSERT_ID()");
            }
            return OptionalLong.of(keys.getLong(1));
        }
    }

    private static void bind(PreparedStatement statement, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object param = params[i];
            statement.setObject(i + 1, param instanceof String text ? bytes(text) : param);
        }
    }

    private static void addKeys(List<Object> params, List<HeldToken> locks) {
        for (HeldToken lock : locks) {
            params.add(bytes(lock.key().name()));
            params.add(bytes(lock.key().key()));
            params.add(lock.fencingToken());
        }
    }

    private <T> T write(Supplier<T> work) {
        return retrying(() -> inAutocommit(work));
    }

    /**
     * Runs the work (statements through {@link #writeJdbc}) on a pool connection of its own with autocommit on, bound
     * under {@link #writeScope} for the work only: a pool configured with autocommit off would otherwise leave the
     * write uncommitted, and the pool would roll it back.
     */
    private <T> T inAutocommit(Supplier<T> work) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException ex) {
            throw translate("getting a connection for a bizlock write", ex);
        }
        try {
            boolean autoCommit = connection.getAutoCommit();
            if (!autoCommit) {
                connection.setAutoCommit(true);
            }
            TransactionSynchronizationManager.bindResource(writeScope, new ConnectionHolder(connection));
            try {
                return work.get();
            } finally {
                TransactionSynchronizationManager.unbindResource(writeScope);
                if (!autoCommit) {
                    connection.setAutoCommit(false);
                }
            }
        } catch (SQLException ex) {
            throw translate("switching autocommit for a bizlock write", ex);
        } finally {
            try {
                connection.close();
            } catch (SQLException ex) {
                // returned to the pool or closed either way; nothing was left uncommitted
            }
        }
    }

    private DataAccessException translate(String task, SQLException ex) {
        DataAccessException translated = jdbc.getExceptionTranslator().translate(task, null, ex);
        return translated != null ? translated : new UncategorizedSQLException(task, null, ex);
    }

    /** Runs a write, again after a short pause when the server reports a deadlock or lock-wait timeout. */
    private <T> T retrying(Supplier<T> attempt) {
        for (int i = 1; ; i++) {
            try {
                return guarded(attempt);
            } catch (DataAccessException ex) {
                if (i >= MAX_ATTEMPTS || !isTransient(ex)) {
                    throw ex;
                }
                pause(i);
            }
        }
    }

    private <T> T guarded(Supplier<T> work) {
        try {
            return work.get();
        } catch (DataAccessException ex) {
            if (errorCode(ex) == ER_NO_SUCH_TABLE) {
                throw new IllegalStateException(
                        "The bizlock table " + table + " or " + table + "_token_floor does not"
                                + " exist. Let the starter create it (bizlock.migration.enabled=true, the default) or run:\n"
                                + LeaseSchema.ddl(table),
                        ex);
            }
            throw ex;
        }
    }

    private static boolean isTransient(DataAccessException ex) {
        int code = errorCode(ex);
        return code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT;
    }

    private static int errorCode(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getErrorCode();
            }
        }
        return 0;
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L << attempt));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static long micros(Duration duration) {
        return Math.multiplyExact(duration.getSeconds(), 1_000_000L) + duration.getNano() / 1_000;
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
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
