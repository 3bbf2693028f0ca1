package io.github.bizlock.actuate;

import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.LockManager;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of bizlock's locks: the lock database answers, the lock tables are all there (migrated), and the
 * watchdog keeps up with renewals. Down when the database cannot be reached, a table is missing, or held leases have
 * gone unrenewed for half a lease (this instance is about to lose them).
 */
public final class BizLockHealthIndicator extends AbstractHealthIndicator {

    private final Supplier<BizLockDao> daos;
    private final Supplier<LockManager> managers;

    public BizLockHealthIndicator(BizLockDao dao, LockManager manager) {
        this(constant(dao, "dao"), constant(manager, "manager"));
    }

    /**
     * For lock beans created when the lock database first answers: each check gets them, and a supplier that fails
     * (the database does not answer yet) makes the health down with its error.
     */
    public BizLockHealthIndicator(Supplier<BizLockDao> dao, Supplier<LockManager> manager) {
        super("bizlock health check failed");
        this.daos = Objects.requireNonNull(dao, "dao");
        this.managers = Objects.requireNonNull(manager, "manager");
    }

    private static <T> Supplier<T> constant(T value, String name) {
        Objects.requireNonNull(value, name);
        return () -> value;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        BizLockDao dao = daos.get();
        LockManager manager = managers.get();
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
