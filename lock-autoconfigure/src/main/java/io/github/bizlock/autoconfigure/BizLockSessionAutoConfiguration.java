package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;

/**
 * The ROW and NAMED engines. Their locks hold a connection each for as long as they are held, so the connections come
 * from a small pool of their own, opened with the settings of the lock DataSource: held locks never take connections
 * from the application's pool. An acquisition that finds them all held queues for one within its wait time, and only
 * then fails, naming {@code bizlock.session.max-connections}. Both engines are a {@link SessionLockEngine}: each backs
 * off when the application defines a bean of its name ({@code rowLockEngine}, {@code namedLockEngine}).
 */
@AutoConfiguration(after = BizLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "bizlock.enabled", matchIfMissing = true)
@ConditionalOnBean({LockDaos.class, LeaseLockEngine.class})
@EnableConfigurationProperties({BizLockSessionProperties.class, BizLockNamedProperties.class})
public final class BizLockSessionAutoConfiguration {

    /**
     * Where held sessions connect: plain connections with the lock DataSource's settings (from HikariCP all of them:
     * URL, credentials, driver properties such as TLS, init SQL; from another pool its URL and credentials). The engines keep
     * idle ones for reuse, and a pool in between would only hide a dead session behind a fresh one. Not a
     * {@link DataSource} bean, so the application's DataSource stays the only one. A DataSource of your own here is
     * called from bizlock's threads (a connection is opened on a thread of its own, so that a database that does not
     * answer cannot hold the caller past its deadline): it must not depend on the caller's thread, as a routing
     * DataSource keyed by a thread-local would.
     */
    public record SessionConnections(DataSource dataSource) {}

    @Bean
    @ConditionalOnMissingBean
    SessionConnections bizLockSessionConnections(
            BizLockProperties properties,
            ListableBeanFactory beanFactory,
            @BizLockDataSource ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources) {
        DataSource lockDataSource = BizLockAutoConfiguration.lockDataSource(
                properties.getDatasource(), beanFactory, qualified, dataSources);
        return new SessionConnections(LockConnections.plain(lockDataSource));
    }

    @Bean
    @ConditionalOnMissingBean(name = "namedLockEngine")
    @Lazy
    SessionLockEngine namedLockEngine(
            LockDaos dao,
            LeaseLockEngine lease,
            SessionConnections connections,
            BizLockSessionProperties session,
            BizLockNamedProperties named,
            BizLockProperties properties) {
        return requireAllowedAsDefault(
                SessionLockEngine.named(
                        dao.dialect(),
                        dao.tokens(),
                        dao.schema(),
                        connections.dataSource(),
                        session.getMaxConnections(),
                        lease.owner(),
                        session.getHeartbeat(),
                        named.getSecret()),
                properties);
    }

    @Bean
    @ConditionalOnMissingBean(name = "rowLockEngine")
    @Lazy
    SessionLockEngine rowLockEngine(
            LockDaos dao,
            LeaseLockEngine lease,
            SessionConnections connections,
            BizLockSessionProperties session,
            BizLockProperties properties) {
        return requireAllowedAsDefault(
                SessionLockEngine.row(
                        dao.dialect(),
                        dao.tokens(),
                        connections.dataSource(),
                        session.getMaxConnections(),
                        lease.owner(),
                        session.getHeartbeat()),
                properties);
    }

    /**
     * On a multi-writer cluster a ROW or NAMED engine refuses every lock; when its mode is the default one
     * ({@code bizlock.mode}), the application fails to start instead of failing at its first lock.
     */
    private static SessionLockEngine requireAllowedAsDefault(SessionLockEngine engine, BizLockProperties properties) {
        if (properties.getMode() == engine.mode()) {
            try {
                engine.requireAllowedHere();
            } catch (IllegalStateException ex) {
                engine.close();
                throw ex;
            }
        }
        return engine;
    }
}
