package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockFixture;
import io.github.bizlock.internal.engine.LockKey;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/** What the server shows of LEASE's wake locks, for tests outside this package: who holds one, who queues for it. */
public final class WakeProbe {

    private WakeProbe() {}

    /** The server's name of the key's wake lock, on the default table of the test database. */
    public static String name(DataSource dataSource, LockKey key) {
        return NamedLockNames.wake(LockFixture.daos(dataSource).schema()).of(key);
    }

    /** The connection id of the session that holds the key's wake lock, or {@code null} if none does. */
    public static @Nullable Long holder(DataSource dataSource, LockKey key) {
        return new JdbcTemplate(dataSource).queryForObject("SELECT IS_USED_LOCK(?)", Long.class, name(dataSource, key));
    }

    /**
     * The connection ids of the sessions queued on the server for the key's wake lock, oldest wait first: a statement
     * whose text names the lock and that has run for longer than the quick take could.
     */
    public static List<Long> queued(DataSource dataSource, LockKey key) {
        return new JdbcTemplate(dataSource)
                .queryForList(
                        "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()"
                                + " AND INFO NOT LIKE '%, 0)' ORDER BY TIME DESC, ID",
                        Long.class, "%GET_LOCK('" + name(dataSource, key) + "'%");
    }

    /** The sessions a process's wake locks hold open now. */
    public static int sessions(WakeLocks wakes) {
        return wakes.openSessions();
    }
}
