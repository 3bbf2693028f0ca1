package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * The floors of issue 32, each issuing a fencing token: the lease hand-off floor (what a LEASE hand-off woken through
 * {@code GET_LOCK} costs in SQL alone) and the composite token floors (a lock plus one durable counter write: what ROW
 * and NAMED cannot go below when every acquisition takes a token).
 */
final class TokenFloors {

    private TokenFloors() {}

    private static final String CREATE_COUNTER = "INSERT IGNORE INTO bench_counter (k, token) VALUES (?, 0)";

    /** Raises a key's counter in one autocommit statement; the new value comes back as the generated key. */
    private static final String NEXT_TOKEN = """
            UPDATE bench_counter
               SET token = LAST_INSERT_ID(token + 1)
             WHERE k = ?
            """;

    /** Rows made at their first use (not measured: the first lock is a warm-up). */
    private abstract static class WithRows extends Floors.Floor {

        private final Set<String> created = new HashSet<>();

        WithRows(Env env, int threads, boolean autoCommit) {
            super(env, threads, autoCommit);
        }

        /** Runs {@code insert} for {@code key} the first time this floor sees both. */
        void createOnce(Connection connection, String insert, String key) throws SQLException {
            synchronized (created) {
                if (created.add(insert + key)) {
                    update(connection, insert, key);
                    if (!connection.getAutoCommit()) {
                        connection.commit();
                    }
                }
            }
        }

        static long nextToken(Connection connection, String key) throws SQLException {
            try (PreparedStatement statement =
                    connection.prepareStatement(NEXT_TOKEN, Statement.RETURN_GENERATED_KEYS)) {
                statement.setString(1, key);
                if (statement.executeUpdate() != 1) {
                    throw new IllegalStateException("no counter row for " + key);
                }
                try (ResultSet keys = statement.getGeneratedKeys()) {
                    keys.next();
                    return keys.getLong(1);
                }
            }
        }

        static void getLock(Connection connection, String name) throws SQLException {
            if (!queryTrue(connection, "SELECT GET_LOCK(?, " + WAIT.toSeconds() + ")", name)) {
                throw new IllegalStateException("GET_LOCK: not acquired in " + WAIT);
            }
        }
    }

    /**
     * Lease hand-off floor: a lease row taken and freed by two autocommit {@code UPDATE}s shaped like bizlock LEASE's
     * (without its fencing-epoch check), the next holder woken through {@code GET_LOCK}: a waiter blocks in
     * {@code GET_LOCK(w, t)}, the holder holds {@code w} while it holds the row and releases it after its release
     * {@code UPDATE}. The critical path of a hand-off: the release commit, {@code RELEASE_LOCK}, the wake, the acquire
     * commit.
     */
    static final class LeaseHandOff extends WithRows {

        private static final String ACQUIRE = """
                UPDATE bench_lease
                   SET owner_id      = ?,
                       fencing_token = LAST_INSERT_ID(fencing_token + 1),
                       acquired_at   = UTC_TIMESTAMP(6),
                       modified_at   = UTC_TIMESTAMP(6),
                       expire_at     = UTC_TIMESTAMP(6) + INTERVAL 30000000 MICROSECOND
                 WHERE biz_type = 'bench'
                   AND biz_id = ?
                   AND (owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6))
                """;

        private static final String RELEASE = """
                UPDATE bench_lease
                   SET owner_id    = NULL,
                       modified_at = UTC_TIMESTAMP(6),
                       expire_at   = UTC_TIMESTAMP(6)
                 WHERE biz_type = 'bench'
                   AND biz_id = ?
                   AND owner_id = ?
                   AND fencing_token = ?
                """;

        private static final String CREATE = """
                INSERT IGNORE INTO bench_lease
                       (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at, acquired_at, modified_at)
                VALUES ('bench', ?, NULL, 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
                """;

        private final String owner = "floor-" + UUID.randomUUID();

        LeaseHandOff(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            String wake = "bench-wake-" + key;
            return holdWithToken(
                    c -> {
                        createOnce(c, CREATE, key);
                        getLock(c, wake);
                        try (PreparedStatement acquire = c.prepareStatement(ACQUIRE, Statement.RETURN_GENERATED_KEYS)) {
                            acquire.setString(1, owner);
                            acquire.setString(2, key);
                            if (acquire.executeUpdate() != 1) {
                                queryTrue(c, "SELECT RELEASE_LOCK(?)", wake);
                                throw new IllegalStateException("lease row taken while its wake lock was free");
                            }
                            try (ResultSet keys = acquire.getGeneratedKeys()) {
                                keys.next();
                                return keys.getLong(1);
                            }
                        }
                    },
                    (c, token) -> {
                        try (PreparedStatement release = c.prepareStatement(RELEASE)) {
                            release.setString(1, key);
                            release.setString(2, owner);
                            release.setLong(3, token);
                            release.executeUpdate();
                        }
                        queryTrue(c, "SELECT RELEASE_LOCK(?)", wake);
                    });
        }
    }

    /** Composite token floor of NAMED: {@code GET_LOCK}, one autocommit counter {@code UPDATE}, {@code RELEASE_LOCK}. */
    static final class GetLockToken extends WithRows {

        GetLockToken(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            String counter = "get-lock:" + key;
            String name = "bench-token-" + key;
            return holdWithToken(
                    c -> {
                        createOnce(c, CREATE_COUNTER, counter);
                        getLock(c, name);
                        return nextToken(c, counter);
                    },
                    (c, token) -> queryTrue(c, "SELECT RELEASE_LOCK(?)", name));
        }
    }

    /**
     * Composite token floor of ROW: {@code SELECT ... FOR UPDATE}, the counter {@code UPDATE} on a second connection in
     * autocommit (a token durable before it is used, as ROW issues it), {@code COMMIT}.
     */
    static final class ForUpdateToken extends WithRows {

        private final HikariDataSource counters;

        ForUpdateToken(Env env, int threads) {
            super(env, threads, false);
            this.counters = Pools.pool(env, Math.max(1, threads), true);
        }

        @Override
        public Held lock(String key) throws Exception {
            String counter = "for-update:" + key;
            return holdWithToken(
                    c -> {
                        createOnce(c, "INSERT IGNORE INTO bench_row (k) VALUES (?)", key);
                        try (PreparedStatement statement =
                                c.prepareStatement("SELECT k FROM bench_row WHERE k = ? FOR UPDATE")) {
                            statement.setString(1, key);
                            statement.executeQuery().close();
                        }
                        try (Connection second = counters.getConnection()) {
                            createOnce(second, CREATE_COUNTER, counter);
                            return nextToken(second, counter);
                        }
                    },
                    (c, token) -> c.commit());
        }

        @Override
        public void close() {
            super.close();
            counters.close();
        }
    }
}
