package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The token floor as the start of a fencing epoch. New token counters (a LEASE row, a ROW or NAMED token row) start
 * from the floor only on the server that took the floor over last. A server that finds the floor another's (a replica
 * promoted after a failover) takes it over first, raising it by {@link #FAILOVER_JUMP}, so that its new counters start
 * above every one the old primary may have started in writes the replica never received; counters that exist jump
 * the same way at their first token on the new server ({@code LeaseSql}, {@code TokenSql}).
 *
 * <p>The floor is taken over in a write of its own, committed before the first token issued from it, so that a later
 * replica that has any of those tokens has the take-over too.
 */
final class TokenFloor {

    /**
     * How far a counter or the floor jumps when another server than the one that wrote it last issues from it: the
     * {@code 4294967296} of the statements. Tokens the new server never received are covered while fewer than this many
     * were issued on one counter after the last write it received; a token stays below {@link Long#MAX_VALUE} for
     * two billion failovers.
     */
    static final long FAILOVER_JUMP = 1L << 32;

    private final LockJdbc db;
    private final String takeOver;

    TokenFloor(LockJdbc db, Dialect dialect) {
        this.db = db;
        // A floor no server has taken since the migration (NULL) is taken without a jump: the server that ran the
        // migration is the one that issued every token so far.
        this.takeOver = dialect.render("""
                UPDATE ${table}_token_floor
                   SET floor_token  = floor_token + IF(token_server IS NULL, 0, 4294967296),
                       token_server = ${token_server}
                 WHERE id = 1
                   AND NOT token_server <=> ${token_server}
                """);
    }

    /**
     * Takes the floor over for this server if it is another's, in a write of its own; a no-op otherwise. For a
     * statement that issued nothing because the floor was not this server's, which then runs once more.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the write must have ended, whatever the database does
     */
    void takeOver(long deadlineNanos) {
        db.update(deadlineNanos, takeOver);
    }

    /** {@link #takeOver(long)} on a connection in autocommit mode, so it commits on its own. */
    void takeOver(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate(takeOver);
        }
    }
}
