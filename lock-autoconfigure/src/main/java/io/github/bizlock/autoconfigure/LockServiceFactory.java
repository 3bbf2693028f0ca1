package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockLostListener;
import io.github.bizlock.service.LockObserver;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockTables;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The {@code bizlock.*} properties mapped onto {@link LockService.Builder}, the one place the auto-configuration says
 * how bizlock is built; the builder is made once, so the instance id (with its random part) is known before the lock
 * database answers and stays the same over every attempt to build. Listeners, observers and customizers are beans the
 * application may make depend on the lock template, so they are applied at the first build, not at start-up.
 */
final class LockServiceFactory {

    private static final Logger log = LoggerFactory.getLogger(LockServiceFactory.class);

    private final DataSource dataSource;
    private final LockService.Builder builder;
    private final Runnable applyBeans;
    private boolean beansApplied;

    /**
     * @param connections the size of the pool of LEASE writes ({@code bizlock.writes.max-connections})
     * @param tables the step that migrates or checks the lock tables, run before the builder's own check
     * @param beans the customizers, the lost-lock listeners and the observers, in their order
     */
    LockServiceFactory(
            DataSource dataSource,
            BizLockProperties properties,
            int connections,
            BizLockSessionProperties session,
            BizLockNamedProperties named,
            Consumer<LockTables> tables,
            Beans beans) {
        this.dataSource = dataSource;
        this.builder = map(LockService.builder(dataSource), dataSource, properties, connections, session, named)
                .prepareTables(tables);
        this.applyBeans = () -> {
            builder.listener(beans.publisher()::publishEvent);
            beans.listeners().orderedStream().forEach(builder::listener);
            beans.observers().orderedStream().forEach(builder::observer);
            beans.customizers().orderedStream().forEach(customizer -> customizer.customize(builder));
        };
    }

    /** The application's beans the builder takes. */
    record Beans(
            ApplicationEventPublisher publisher,
            ObjectProvider<LockLostListener> listeners,
            ObjectProvider<LockObserver> observers,
            ObjectProvider<BizLockServiceCustomizer> customizers) {}

    private static LockService.Builder map(
            LockService.Builder builder,
            DataSource dataSource,
            BizLockProperties properties,
            int connections,
            BizLockSessionProperties session,
            BizLockNamedProperties named) {
        BizLockBackoffProperties backoff = properties.getBackoff();
        BizLockHousekeepingProperties housekeeping = properties.getHousekeeping();
        builder.defaultMode(properties.getMode())
                .tableName(properties.getTableName())
                .waitTime(properties.getWaitTime())
                .leaseTime(properties.getLeaseTime())
                .watchdogLease(properties.getWatchdogLease())
                .fair(properties.isFair())
                .localHandoffs(properties.getLocalHandoffs())
                .onLost(properties.getOnLost())
                .backoff(backoff.getInitial(), backoff.checkedMax())
                .wakeUp(properties.isWakeUp())
                .singleWriter(properties.getCluster().isSingleWriter())
                .housekeeping(housekeeping.isEnabled())
                .housekeeping(housekeeping.getInterval(), housekeeping.getRetention(), housekeeping.getBatchSize())
                .maxWriteConnections(connections)
                .maxSessions(session.getMaxConnections())
                .sessionHeartbeat(session.getHeartbeat());
        if (properties.getInstanceId() != null) {
            builder.instanceId(properties.getInstanceId());
        }
        if (named.getSecret() != null) {
            builder.namedSecret(named.getSecret());
        }
        DataSource sessions = sessionConnections(dataSource);
        if (sessions != null) {
            builder.sessionDataSource(sessions);
        }
        return builder;
    }

    /**
     * Plain connections with the lock DataSource's settings, for the sessions ROW and NAMED locks hold (LEASE writes
     * get a small pool of them too when the DataSource is not HikariCP); {@code null}, with a warning, when its
     * settings cannot be read: then only LEASE locks are available unless a {@link BizLockServiceCustomizer} gives the
     * builder a session DataSource.
     */
    private static @Nullable DataSource sessionConnections(DataSource dataSource) {
        try {
            return LockConnections.plain(dataSource);
        } catch (IllegalStateException unreadable) {
            log.warn("{}; until then ROW and NAMED locks are not available", unreadable.getMessage());
            return null;
        }
    }

    /** This instance's owner id in lock rows, the same before and after the lock database answers. */
    String instanceId() {
        return builder.instanceId();
    }

    /**
     * Builds the lock service; called again after a failure. Only the lock service's bean method calls it, one call at
     * a time, since Spring creates a singleton once.
     */
    LockService build() {
        if (!beansApplied) {
            beansApplied = true;
            applyBeans.run();
        }
        try {
            return builder.build();
        } catch (DataAccessResourceFailureException ex) {
            // Its first connection: a database that does not answer is reported here, at start-up or at a lock before
            // it first answered (LockDatabaseStartup).
            throw LockDatabaseUnreachableException.of(dataSource, ex);
        }
    }
}
