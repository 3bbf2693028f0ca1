package io.github.bizlock.service;

import io.github.bizlock.internal.jdbc.HikariLockPool;
import io.github.bizlock.internal.jdbc.LockConnectionPool;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.util.ClassUtils;

/**
 * Where a {@link LockService}'s LEASE writes, renewals, releases and fencing tokens run, as the starter chooses them:
 * connections the application cannot take, so that callers holding every connection of its pool (open transactions)
 * delay neither acquisitions nor the watchdog. A pool it makes is made at the first lock, so that a service that
 * fails to build leaves nothing open, and closed by {@link #close()}.
 */
final class LockWriteConnections implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockWriteConnections.class);
    private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

    /** The default size of the pool bizlock makes: one statement each, so a few serve many locks. */
    static final int SIZE = 4;

    private final DataSource dataSource;

    private LockWriteConnections(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The connections given; else a copy of the application's HikariCP pool; else a pool of the session DataSource's
     * plain connections; else, with a warning, the application's DataSource itself.
     */
    static LockWriteConnections choose(
            DataSource lockDataSource, @Nullable DataSource given, @Nullable DataSource sessions, int size) {
        if (given != null) {
            return new LockWriteConnections(given);
        }
        if (ClassUtils.isPresent(HIKARI, LockWriteConnections.class.getClassLoader())
                && HikariLockPool.isHikari(lockDataSource)) {
            return new LockWriteConnections(new MadeAtFirstUse(() -> HikariLockPool.copyOf(lockDataSource, size)));
        }
        if (sessions != null) {
            return new LockWriteConnections(new MadeAtFirstUse(() -> new LockConnectionPool(sessions, size)));
        }
        log.warn(
                "bizlock: LEASE lock writes and renewals borrow connections from the application's DataSource ({}), and"
                        + " callers holding all of its connections delay them; give LockService.Builder a"
                        + " lockConnections(DataSource) of their own, or a sessionDataSource(DataSource) of plain"
                        + " connections, which bizlock then pools for them",
                lockDataSource.getClass().getName());
        return new LockWriteConnections(lockDataSource);
    }

    DataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() {
        if (dataSource instanceof MadeAtFirstUse pool) {
            pool.close();
        }
    }

    /** A pool made when a connection is first asked for; closing it closes the pool, if it was made. */
    private static final class MadeAtFirstUse extends AbstractDataSource implements AutoCloseable {

        private final Supplier<DataSource> maker;
        // A lock, not synchronized: a virtual thread must not pin while another one makes the pool.
        private final ReentrantLock making = new ReentrantLock();
        private volatile @Nullable DataSource pool;
        private volatile boolean closed;

        MadeAtFirstUse(Supplier<DataSource> maker) {
            this.maker = maker;
        }

        private DataSource pool() throws SQLException {
            DataSource made = pool;
            if (made != null) {
                return made;
            }
            making.lock();
            try {
                if (closed) {
                    throw new SQLException("bizlock's lock connections are closed: the LockService was closed");
                }
                made = pool;
                if (made == null) {
                    made = maker.get();
                    pool = made;
                }
                return made;
            } finally {
                making.unlock();
            }
        }

        @Override
        public Connection getConnection() throws SQLException {
            return pool().getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return pool().getConnection(username, password);
        }

        @Override
        public void close() {
            making.lock();
            try {
                closed = true;
                if (pool instanceof AutoCloseable made) {
                    made.close();
                }
            } catch (Exception ex) {
                log.warn("bizlock: closing the pool of LEASE lock connections failed", ex);
            } finally {
                making.unlock();
            }
        }

        @Override
        public String toString() {
            DataSource made = pool;
            return made != null ? made.toString() : "bizlock lock connections (not opened yet)";
        }
    }
}
