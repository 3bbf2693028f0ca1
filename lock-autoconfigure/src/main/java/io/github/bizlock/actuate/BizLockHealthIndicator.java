package io.github.bizlock.actuate;

import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of bizlock's locks on Spring Boot 4: the lock database answers, the lock tables are all there (migrated),
 * and the watchdog keeps up with renewals ({@link LockHealthCheck}).
 */
public final class BizLockHealthIndicator extends AbstractHealthIndicator {

    private final LockHealthCheck check;

    public BizLockHealthIndicator(LockDaos dao, LockManager manager) {
        super("bizlock health check failed");
        this.check = new LockHealthCheck(dao, manager);
    }

    /**
     * For lock beans created when the lock database first answers: each check gets them, and a supplier that fails
     * (the database does not answer yet) makes the health down with its error.
     */
    public BizLockHealthIndicator(Supplier<LockDaos> dao, Supplier<LockManager> manager) {
        super("bizlock health check failed");
        this.check = new LockHealthCheck(dao, manager);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LockHealthCheck.Result result = check.check();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
    }
}
