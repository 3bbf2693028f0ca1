package io.github.bizlock.service;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockDatabase;
import io.github.bizlock.internal.jdbc.ReadLeaseDao;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.lease.LeaseReadEngine;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * {@link LockService.Builder#build()}: the one place that assembles the lock library from its settings, in the order
 * a start needs: the server, the tables, the engines, the lock manager, the template, housekeeping.
 */
final class ServiceAssembly {

    private ServiceAssembly() {}

    static LockService assemble(ServiceSettings settings) {
        if (settings.defaultMode != LockMode.LEASE && settings.sessionDataSource == null) {
            throw new IllegalStateException("The default mode " + settings.defaultMode + " holds a connection per lock:"
                    + " give the builder a sessionDataSource of plain connections to the lock database");
        }
        // Opened at the first lock: a build that fails leaves nothing open.
        LockWriteConnections writes = LockWriteConnections.choose(
                settings.dataSource,
                settings.lockConnections,
                settings.sessionDataSource,
                settings.maxWriteConnections);
        List<AutoCloseable> opened = new ArrayList<>(List.of(writes));
        try {
            return assemble(settings, writes, opened);
        } catch (RuntimeException | Error ex) {
            closeAll(opened, ex);
            throw ex;
        }
    }

    private static LockService assemble(
            ServiceSettings settings, LockWriteConnections writes, List<AutoCloseable> opened) {
        String owner = settings.instanceId;
        LockDaos daos = LockDaos.of(
                new LockDatabase(
                        settings.dataSource,
                        writes.dataSource(),
                        Dialects.detect(settings.dataSource, settings.tableName, settings.singleWriter)),
                // A transaction manager of bizlock's own: housekeeping never joins the caller's transaction.
                new DataSourceTransactionManager(settings.dataSource));
        LockTables tables = new LockTables(settings.dataSource, daos);
        for (Consumer<LockTables> step : settings.tableSteps) {
            step.accept(tables);
        }
        daos.schema().requireTables();
        LeaseLockEngine lease = new LeaseLockEngine(
                daos.leases(),
                owner,
                settings.backoff,
                settings.wakeUp && settings.sessionDataSource != null
                        ? new WakeLocks(daos.dialect(), daos.schema(), settings.sessionDataSource)
                        : null);
        opened.add(lease);
        LockManagerBuilder locks = LockManager.builder(owner)
                .modeBindings(daos.modes())
                .watchdogLease(settings.watchdogLease)
                .fair(settings.fair)
                .localHandoffs(settings.localHandoffs)
                .engine(lease)
                .readEngine(new LeaseReadEngine(
                        new ReadLeaseDao(daos.database()), daos.dialect(), owner, settings.backoff));
        if (settings.sessionDataSource != null) {
            SessionLockEngine row = SessionLockEngine.row(
                    daos.dialect(),
                    daos.tokens(),
                    settings.sessionDataSource,
                    settings.maxSessions,
                    owner,
                    settings.sessionHeartbeat);
            opened.add(row);
            SessionLockEngine named = SessionLockEngine.named(
                    daos.dialect(),
                    daos.tokens(),
                    daos.schema(),
                    settings.sessionDataSource,
                    settings.maxSessions,
                    owner,
                    settings.sessionHeartbeat,
                    settings.namedSecret);
            opened.add(named);
            SessionLockEngine rowReader = SessionLockEngine.rowReader(
                    daos.dialect(),
                    daos.tokens(),
                    settings.sessionDataSource,
                    settings.maxSessions,
                    owner,
                    settings.sessionHeartbeat);
            opened.add(rowReader);
            locks.readEngine(rowReader);
            // A default mode that cannot be trusted on this server fails the start, not the first lock.
            if (settings.defaultMode == LockMode.ROW) {
                row.requireAllowedHere();
            } else if (settings.defaultMode == LockMode.NAMED) {
                named.requireAllowedHere();
            }
            locks.engine(row).engine(named);
        }
        settings.observers.forEach(observer -> locks.observer(new ObserverAdapter(observer)));
        LockManager manager = locks.build();
        // The manager closes the engines from now on, before the connections they release on.
        opened.clear();
        opened.add(manager);
        opened.add(writes);
        settings.listeners.forEach(manager::addListener);
        LockTemplate template = new DefaultLockTemplate(
                manager, settings.defaultMode, settings.waitTime, settings.leaseTime, settings.onLost);
        Housekeeper housekeeper = null;
        if (settings.housekeeping) {
            housekeeper = new Housekeeper(
                    daos.housekeeping(), manager, settings.housekeepingRetention, settings.housekeepingBatchSize);
            housekeeper.schedule(settings.housekeepingInterval);
        }
        return new LockService(manager, template, new BizLockDao(daos), housekeeper, writes);
    }

    private static void closeAll(List<AutoCloseable> opened, Throwable failure) {
        for (AutoCloseable resource : opened) {
            try {
                resource.close();
            } catch (Exception ex) {
                failure.addSuppressed(ex);
            }
        }
    }
}
