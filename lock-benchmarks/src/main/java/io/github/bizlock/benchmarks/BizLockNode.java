package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.named.NamedLockEngine;
import io.github.bizlock.internal.jdbc.row.RowLockEngine;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * bizlock through its {@link LockManager}, built the way the auto-configuration builds it. The fencing token is asked
 * of the handle only when {@link Held#token()} is called, unless {@code readToken} has every lock read it.
 */
final class BizLockNode implements Node {

    /** The LEASE engine's default backoff, also used for ShedLock, which has no waiting of its own. */
    static final Backoff BACKOFF = Backoff.DEFAULT;

    final HikariDataSource pool;
    final LockManager manager;
    final LockMode mode;
    final boolean readToken;

    BizLockNode(Env env, LockMode mode, int threads, boolean fair, boolean readToken, Duration watchdogLease) {
        this.mode = mode;
        this.readToken = readToken;
        this.pool = Pools.forClient(env, threads);
        String owner = InstanceId.generate();
        BizLockDao dao = new BizLockDao(
                pool,
                new DataSourceTransactionManager(pool),
                Dialects.detect(pool, TableName.DEFAULT),
                TableName.DEFAULT);
        DriverManagerDataSource sessions = new DriverManagerDataSource(env.jdbcUrl(), env.user(), env.password());
        LockEngine engine = switch (mode) {
            case LEASE -> new LeaseLockEngine(dao, owner, BACKOFF);
            case ROW -> new RowLockEngine(dao, sessions, threads + 2, owner);
            case NAMED -> new NamedLockEngine(dao, sessions, threads + 2, owner);
        };
        LockManager.Builder builder = LockManager.builder(owner)
                .engine(engine)
                .modeBindings(dao.modes())
                .fair(fair);
        if (watchdogLease != null) {
            builder.watchdogLease(watchdogLease);
        }
        this.manager = builder.build();
    }

    static BizLockNode of(Env env, LockMode mode, int threads, boolean fair, boolean readToken) {
        return new BizLockNode(env, mode, threads, fair, readToken, null);
    }

    @Override
    public Held lock(String key) throws Exception {
        // A name per mode: each lock name is bound to the mode of its first use.
        LockHandle handle = manager.tryAcquire(new LockKey("bench-" + mode, key), mode, WAIT, null)
                .orElseThrow(() -> new IllegalStateException("bizlock: not acquired in " + WAIT));
        Held held = Held.of(handle::fencingToken, handle::unlock);
        if (readToken) {
            held.token();
        }
        return held;
    }

    @Override
    public void close() {
        manager.close();
        pool.close();
    }
}
