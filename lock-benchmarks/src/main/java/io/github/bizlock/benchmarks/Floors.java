package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

/** The lock floors: the statements of a lock on a pooled connection, no library around them. */
final class Floors {

    private Floors() {}

    /** A floor's pool and how it holds a connection while locked. */
    abstract static class Floor implements Node {

        final HikariDataSource pool;

        Floor(Env env, int threads, boolean autoCommit) {
            this.pool = Pools.pool(env, Math.max(1, threads), autoCommit);
        }

        @Override
        public void close() {
            pool.close();
        }

        static boolean queryTrue(Connection connection, String sql, String key) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                if (key != null) {
                    statement.setString(1, key);
                }
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() && row.getInt(1) == 1;
                }
            }
        }

        static int update(Connection connection, String sql, String key) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setString(1, key);
                return statement.executeUpdate();
            }
        }

        /**
         * Borrows a connection and takes the lock on it with {@code take}; the hold releases it with {@code release}
         * and gives the connection back. A failed take gives it back at once.
         */
        Held hold(SqlAction take, SqlAction release) throws SQLException {
            return holdWithToken(
                    c -> {
                        take.run(c);
                        return -1;
                    },
                    (c, token) -> release.run(c));
        }

        /** {@link #hold}, where {@code take} also issues a fencing token, which the release is given. */
        Held holdWithToken(SqlTake take, SqlRelease release) throws SQLException {
            Connection connection = pool.getConnection();
            long token;
            try {
                token = take.run(connection);
            } catch (SQLException | RuntimeException ex) {
                connection.close();
                throw ex;
            }
            return Held.of(token, () -> {
                try (connection) {
                    release.run(connection, token);
                }
            });
        }

        interface SqlAction {
            void run(Connection connection) throws SQLException;
        }

        interface SqlTake {
            long run(Connection connection) throws SQLException;
        }

        interface SqlRelease {
            void run(Connection connection, long token) throws SQLException;
        }
    }

    /** {@code INSERT} on a unique key to lock, {@code DELETE} to unlock (autocommit): LEASE's floor. */
    static final class InsertDelete extends Floor {

        InsertDelete(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            return hold(
                    c -> update(c, "INSERT INTO bench_insert (k) VALUES (?)", key),
                    c -> update(c, "DELETE FROM bench_insert WHERE k = ?", key));
        }
    }

    /** {@code GET_LOCK} / {@code RELEASE_LOCK}: NAMED's floor; the server queues waiters. */
    static final class GetLock extends Floor {

        GetLock(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            String name = "bench-floor-" + key;
            return hold(
                    c -> {
                        if (!queryTrue(c, "SELECT GET_LOCK(?, " + WAIT.toSeconds() + ")", name)) {
                            throw new IllegalStateException("GET_LOCK: not acquired in " + WAIT);
                        }
                    },
                    c -> queryTrue(c, "SELECT RELEASE_LOCK(?)", name));
        }
    }

    /** {@code SELECT ... FOR UPDATE} on a pre-created row, released by {@code COMMIT}: ROW's floor. */
    static final class ForUpdate extends Floor {

        private final Set<String> created = new HashSet<>();

        ForUpdate(Env env, int threads) {
            super(env, threads, false);
        }

        @Override
        public Held lock(String key) throws Exception {
            synchronized (created) {
                if (created.add(key)) {
                    try (Connection connection = pool.getConnection()) {
                        update(connection, "INSERT IGNORE INTO bench_row (k) VALUES (?)", key);
                        connection.commit();
                    }
                }
            }
            return hold(
                    c -> {
                        try (PreparedStatement statement =
                                c.prepareStatement("SELECT k FROM bench_row WHERE k = ? FOR UPDATE")) {
                            statement.setString(1, key);
                            statement.executeQuery().close();
                        }
                    },
                    Connection::commit);
        }
    }

    /** One round trip and nothing else. */
    static final class SelectOne extends Floor {

        SelectOne(Env env, int threads) {
            super(env, threads, true);
        }

        @Override
        public Held lock(String key) throws Exception {
            return hold(c -> queryTrue(c, "SELECT 1", null), c -> {});
        }
    }
}
