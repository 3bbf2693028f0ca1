package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.TokenSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * Issues the fencing tokens of ROW and NAMED locks from the token table, each batch in a statement that commits on its
 * own, so they stay issued whatever becomes of the lock's session or the caller's transaction.
 */
public final class TokenIssuer {

    /**
     * How long an issue through the lock data source may wait for the database, the pool's connection included: a
     * database that answers issues in milliseconds, and a connection to a host that died without a word would
     * otherwise hold the caller until the OS gives up on it (~15 min).
     */
    static final Duration ISSUE_TIMEOUT = Duration.ofSeconds(5);

    private final LockJdbc db;
    private final TokenSql sql;
    private final String table;
    private final TokenFloor floor;

    public TokenIssuer(LockDatabase database) {
        this.db = database.jdbc();
        this.sql = new TokenSql(database.dialect());
        this.table = database.table();
        this.floor = new TokenFloor(db, sql);
    }

    /**
     * Issues the next {@code count} fencing tokens of a lock through the lock data source, within
     * {@link #ISSUE_TIMEOUT}.
     *
     * @return the highest of them; all are above every token issued for this lock and mode before
     * @throws org.springframework.dao.DataAccessException if the database did not answer in time, or failed
     */
    public long issue(LockKey key, LockMode mode, int count) {
        requirePositive(count);
        long deadline = System.nanoTime() + ISSUE_TIMEOUT.toNanos();
        OptionalLong token =
                db.updateReturningToken(deadline, sql.issue(), key.name(), key.key(), mode.name(), count, count);
        if (token.isEmpty()) {
            // The floor is another server's (a failover): take it over for this server, then issue.
            floor.takeOver(deadline);
            token = db.updateReturningToken(deadline, sql.issue(), key.name(), key.key(), mode.name(), count, count);
        }
        return token.orElseThrow(() -> LockSchema.missingFloor(table));
    }

    /**
     * Issues the next {@code count} fencing tokens of a lock on a connection in autocommit mode, so they commit on
     * their own.
     *
     * @return the highest of them
     */
    public long issueOn(Connection connection, LockKey key, LockMode mode, int count) throws SQLException {
        OptionalLong token = issueOnce(connection, key, mode, count);
        if (token.isEmpty()) {
            floor.takeOver(connection);
            token = issueOnce(connection, key, mode, count);
        }
        return token.orElseThrow(() -> LockSchema.missingFloor(table));
    }

    private OptionalLong issueOnce(Connection connection, LockKey key, LockMode mode, int count) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql.issue(), Statement.RETURN_GENERATED_KEYS)) {
            statement.setBytes(1, bytes(key.name()));
            statement.setBytes(2, bytes(key.key()));
            statement.setBytes(3, bytes(mode.name()));
            statement.setInt(4, count);
            statement.setInt(5, count);
            return LockJdbc.executeReturningToken(statement);
        }
    }

    /** The last fencing token issued for a ROW or NAMED lock, if any was. */
    public OptionalLong lastToken(LockKey key, LockMode mode) {
        List<Long> tokens = db.guarded(() -> db.jdbc()
                .queryForList(sql.lastToken(), Long.class, bytes(key.name()), bytes(key.key()), bytes(mode.name())));
        return tokens.isEmpty() ? OptionalLong.empty() : OptionalLong.of(tokens.get(0));
    }

    static void requirePositive(int tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException("At least one fencing token must be reserved, asked for " + tokens);
        }
    }
}
