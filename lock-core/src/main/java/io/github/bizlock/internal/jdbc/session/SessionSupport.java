package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/** What the ROW and NAMED engines share: time arithmetic, error codes, and issuing tokens on a held connection. */
public final class SessionSupport {

    /** ER_QUERY_INTERRUPTED: a statement ended by {@code KILL QUERY}. */
    public static final int ER_QUERY_INTERRUPTED = 1317;

    /** ER_LOCK_WAIT_TIMEOUT: a row lock wait ran out (and MariaDB's failed {@code NOWAIT}). */
    public static final int ER_LOCK_WAIT_TIMEOUT = 1205;

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

    public static DataAccessException translate(String task, SQLException ex) {
        DataAccessException translated = Translator.INSTANCE.translate(task, null, ex);
        return translated != null ? translated : new org.springframework.jdbc.UncategorizedSQLException(task, null, ex);
    }

    /** Loaded on first use: reading Spring's error code table takes a while. */
    private static final class Translator {
        static final SQLExceptionTranslator INSTANCE = new SQLErrorCodeSQLExceptionTranslator("MySQL");
    }

    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
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
            statement.setBytes(1, bytes(key.name()));
            statement.setBytes(2, bytes(key.key()));
            statement.setBytes(3, bytes(mode.name()));
            statement.setInt(4, count);
            statement.setInt(5, count);
            return BizLockDao.executeReturningToken(statement);
        }
    }
}
