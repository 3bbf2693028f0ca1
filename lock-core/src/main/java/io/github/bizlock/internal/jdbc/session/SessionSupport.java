package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockJdbc;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/** What the ROW and NAMED engines share: wait arithmetic, an error code, and issuing tokens on a held connection. */
public final class SessionSupport {

    /** ER_QUERY_INTERRUPTED: a statement ended by {@code KILL QUERY}. */
    public static final int ER_QUERY_INTERRUPTED = 1317;

    /** The longest single server-side wait asked for; longer waits repeat it. About a year. */
    public static final long MAX_SERVER_WAIT_SECONDS = 365L * 24 * 3600;

    private SessionSupport() {}

    /** The whole seconds that cover {@code nanos}, at least 1 and at most {@link #MAX_SERVER_WAIT_SECONDS}. */
    public static long ceilSeconds(long nanos) {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(nanos);
        if (TimeUnit.SECONDS.toNanos(seconds) < nanos) {
            seconds++;
        }
        return Math.max(1, Math.min(seconds, MAX_SERVER_WAIT_SECONDS));
    }

    /** The read timeout for a wait of {@code remainingNanos}: the wait plus the usual statement timeout. */
    public static long waitReadTimeoutMillis(long remainingNanos) {
        long millis = TimeUnit.NANOSECONDS.toMillis(remainingNanos) + SessionPool.STATEMENT_TIMEOUT.toMillis();
        return millis > Integer.MAX_VALUE ? 0 : millis;
    }

    /**
     * Issues the next {@code count} fencing tokens of a lock on a connection in autocommit mode, so they commit on
     * their own.
     *
     * @return the highest of them, or empty if the token floor row is missing
     */
    public static OptionalLong issueTokens(
            Connection connection, Dialect dialect, LockKey key, LockMode mode, int count) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement(dialect.issueToken(), Statement.RETURN_GENERATED_KEYS)) {
            statement.setBytes(1, LockJdbc.bytes(key.name()));
            statement.setBytes(2, LockJdbc.bytes(key.key()));
            statement.setBytes(3, LockJdbc.bytes(mode.name()));
            statement.setInt(4, count);
            statement.setInt(5, count);
            return LockJdbc.executeReturningToken(statement);
        }
    }
}
