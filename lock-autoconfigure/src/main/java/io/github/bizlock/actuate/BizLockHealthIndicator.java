package io.github.bizlock.actuate;

import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.LockManager;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of bizlock's locks on Spring Boot 4: the lock database answers, the lock tables are all there (migrated),
 * and the watchdog keeps up with renewals ({@link LockHealthCheck}).
 */
public final class BizLockHealthIndicator extends AbstractHealthIndicator {

    private final LockHealthCheck check;

    public BizLockHealthIndicator(BizLockDao dao, LockManager manager) {
        super("bizlock health check failed");
        this.check = new LockHealthCheck(dao, manager);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LockHealthCheck.Result result = check.check();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
    }
}
