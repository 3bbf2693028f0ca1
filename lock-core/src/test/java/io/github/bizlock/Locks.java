package io.github.bizlock;

import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * DAOs and lock managers on a {@link LockTest}'s database, built as {@link LockFixture} builds them; every manager built
 * here is closed when the test (or class) that asked for this ends, newest first, so a test never leaves a watchdog or
 * a held lock to the next.
 */
public final class Locks implements AutoCloseable {

    private final DataSource dataSource;
    private final List<LockManager> managers = new ArrayList<>();

    Locks(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The test class's database, where the lock tables are. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The lock tables' DAOs on the default table. */
    public LockDaos daos() {
        return LockFixture.daos(dataSource);
    }

    /** The LEASE table's DAO on the default table. */
    public LeaseDao dao() {
        return daos().leases();
    }

    /** A LEASE manager with every default and an instance id of its own: another application instance. */
    public LockManager manager() {
        return manager(builder -> builder);
    }

    /** A LEASE manager with the settings the function gives its builder. */
    public LockManager manager(UnaryOperator<LockManagerBuilder> settings) {
        return closedAfterwards(settings.apply(LockFixture.manager(dataSource)).build());
    }

    /** A manager of every mode (ROW and NAMED sessions of their own), as the auto-configuration builds one. */
    public LockManager managerOfEveryMode(UnaryOperator<LockManagerBuilder> settings) {
        return closedAfterwards(
                settings.apply(LockFixture.managerOfEveryMode(dataSource)).build());
    }

    /** A template on a manager, with LEASE and a 10 s wait by default. */
    public LockTemplate template(LockManager manager) {
        return LockFixture.template(manager);
    }

    private LockManager closedAfterwards(LockManager manager) {
        synchronized (managers) {
            managers.add(manager);
        }
        return manager;
    }

    /** Closes every manager built here, the last built first; one that fails to close does not keep the rest open. */
    @Override
    public void close() {
        List<LockManager> built;
        synchronized (managers) {
            built = new ArrayList<>(managers);
            managers.clear();
        }
        RuntimeException failed = null;
        for (int i = built.size() - 1; i >= 0; i--) {
            try {
                built.get(i).close();
            } catch (RuntimeException ex) {
                if (failed == null) {
                    failed = ex;
                } else {
                    failed.addSuppressed(ex);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
