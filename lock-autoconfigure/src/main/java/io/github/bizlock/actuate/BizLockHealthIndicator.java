package io.github.bizlock.actuate;

import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.LockManager;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of bizlock's locks: the lock database answers, the lock tables are all there (migrated), and the
 * watchdog keeps up with renewals. Down when the database cannot be reached, a table is missing, or held leases have
 * gone unrenewed for half a lease (this instance is about to lose them).
 */
public final class BizLockHealthIndicator extends AbstractHealthIndicator {

    private final BizLockDao dao;
    private final LockManager manager;

    public BizLockHealthIndicator(BizLockDao dao, LockManager manager) {
        super("bizlock health check failed");
        this.dao = Objects.requireNonNull(dao, "dao");
        this.manager = Objects.requireNonNull(manager, "manager");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LocalDateTime databaseTime = dao.databaseTime();
        List<String> missing = dao.schema().missingTables();
        int overdue = manager.overdueRenewalCount();
        builder.withDetail("database", dao.dialect().product())
                .withDetail(
                        "databaseTime", databaseTime.toInstant(ZoneOffset.UTC).toString())
                .withDetail("table", dao.table())
                .withDetail("instance", manager.instanceId())
                .withDetail("held", manager.heldCount())
                .withDetail("waiting", manager.waitingCount())
                .withDetail("renewed", manager.renewedCount())
                .withDetail("renewalsOverdue", overdue);
        if (!missing.isEmpty()) {
            builder.down()
                    .withDetail("missingTables", missing)
                    .withDetail(
                            "hint",
                            "Let the starter migrate the lock tables (bizlock.migration.enabled=true) or run the DDL"
                                    + " that start-up logs");
        } else if (overdue > 0) {
            builder.down()
                    .withDetail(
                            "hint",
                            overdue + " held lease(s) have not been renewed for half a lease; the lock database is"
                                    + " slow or unreachable from this instance");
        } else {
            builder.up();
        }
    }
}
