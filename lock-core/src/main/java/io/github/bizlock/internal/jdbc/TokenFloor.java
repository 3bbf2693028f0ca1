package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.TokenSql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The token floor as the record of the reign that issues fencing tokens, and of its fencing epoch.
 *
 * <p><b>The rule.</b> A reign is one run of one server as the issuer: {@code token_server} ({@code @@server_id}) and
 * {@code token_boot} (the server's start, {@link Dialect}'s {@code ${token_boot}}). Every statement that issues a token
 * (a LEASE acquisition, a ROW or NAMED token) issues only while the floor names the reign it runs in; otherwise this
 * class takes the floor over first, in a write of its own committed before any token of the new reign: the epoch
 * becomes {@code GREATEST(epoch + 1, s)}, {@code s} the server's clock in seconds since
 * {@link TokenSql#EPOCH_CLOCK_BASE}, and the floor rises by {@link #FAILOVER_JUMP} per epoch gained. Each counter (a LEASE row, a ROW or NAMED token row)
 * records the epoch of its last token and, at its first token in a later epoch, rises by {@link #FAILOVER_JUMP} per
 * epoch it is behind ({@code LeaseSql}, {@link TokenSql}). So a counter's token is always {@code epoch * 2^32 + n},
 * where {@code n} never falls along the history of writes the issuing server has, and rises by the tokens issued.
 *
 * <p><b>Why it holds across any number of failovers.</b> Tokens of a later epoch are above all tokens of an earlier one
 * as long as fewer than 2^32 tokens of one counter were issued in the writes the new primary never received. So it
 * suffices that every reign's epoch is above every earlier reign's, which holds when, for each promotion:
 * <ul>
 *   <li>the new primary notices a new reign: always when it is another server than the last one it saw issue; when
 *       it is that same server (S1 → S2 → S1), when it received any token of the reigns in between (each reign's
 *       take-over is committed before its first token, and replicas apply commits in order, so whoever has one of
 *       its tokens has its take-over, which names another server) or has started again since;</li>
 *   <li>and its epoch is above the last reign's: always when it received that reign's take-over (epoch + 1); else
 *       (S1 → S2 → S3 with S3 never pointed at S2, or S1 started again on its own data) when its clock, at its first
 *       token, is past the last reign's epoch, which is the second of that reign's take-over by its own clock (more
 *       only after reigns that started within one second): servers' clocks within a second of each other and
 *       promotions more than a second apart.</li>
 * </ul>
 * A server that stayed up through another's reign and received none of its tokens looks, from its data and its
 * state, as if it had never stopped issuing: it must be started again (or rebuilt) before it is promoted again.
 *
 * <p><b>Headroom.</b> Tokens stay below {@code 2^63} (a Java {@code long}; the column is {@code BIGINT UNSIGNED})
 * while epochs are below {@code 2^31}. Epochs are used up by the clock, one a second, and by reigns that start within
 * the second of the last one's epoch, one each: about 2.1 billion in all, which lasts until 2094 whatever the number
 * of failovers, and takes a failover more than once a second on average to end sooner. A server whose clock was set
 * years ahead moves the epochs there for good.
 *
 * <p>On a multi-writer cluster every node renders the same reign (server 0, start 0), so its nodes never take the floor
 * from each other. A floor no server has taken since the schema was created (NULL) is taken without a new epoch:
 * nothing was issued from it.
 */
final class TokenFloor {

    /**
     * How far a counter or the floor rises per fencing epoch it is behind: the {@code 4294967296} of the statements.
     */
    static final long FAILOVER_JUMP = 1L << 32;

    private final LockJdbc db;
    private final TokenSql sql;

    TokenFloor(LockJdbc db, TokenSql sql) {
        this.db = db;
        this.sql = sql;
    }

    /**
     * Takes the floor over for this server's reign if it is another's, in a write of its own; a no-op otherwise. For a
     * statement that issued nothing because the floor was not this reign's, which then runs once more.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the write must have ended, whatever the database does
     */
    void takeOver(long deadlineNanos) {
        db.update(deadlineNanos, sql.takeOver());
    }

    /** {@link #takeOver(long)} on a connection in autocommit mode, so it commits on its own. */
    void takeOver(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql.takeOver());
        }
    }
}
