package io.github.bizlock.boot3;

import io.github.bizlock.actuate.LockHealthCheck;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The health of bizlock's locks on Spring Boot 3.5, as {@code io.github.bizlock.actuate.BizLockHealthIndicator} reports
 * it on Spring Boot 4 ({@link LockHealthCheck}).
 */
public final class BizLockBoot3HealthIndicator extends AbstractHealthIndicator {

    private final LockHealthCheck check;

    public BizLockBoot3HealthIndicator(LockDaos dao, LockManager manager) {
        this(new LockHealthCheck(dao, manager));
    }

    public BizLockBoot3HealthIndicator(LockHealthCheck check) {
        super("bizlock health check failed");
        this.check = check;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LockHealthCheck.Result result = check.check();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
    }
}
