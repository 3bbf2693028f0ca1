package io.github.bizlock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The small pool LEASE lock writes, renewals, releases and fencing tokens run on, beside the application's pool: the
 * connections {@code LockService.Builder#lockConnections} would otherwise be given.
 */
@ConfigurationProperties("bizlock.writes")
public class BizLockWritesProperties {

    /**
     * Most connections bizlock keeps for LEASE writes (acquire, renew, release) and fencing tokens, opened with the
     * lock DataSource's settings and never taken from its pool. Each is held for one statement; a write that finds all
     * busy queues for one within its wait time.
     */
    private @Nullable Integer maxConnections;

    public @Nullable Integer getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(@Nullable Integer maxConnections) {
        this.maxConnections = maxConnections == null
                ? null
                : PropertyChecks.atLeast(
                        "bizlock.writes.max-connections",
                        maxConnections,
                        1,
                        "it must be at least 1",
                        "Set bizlock.writes.max-connections to 1 or more, such as 4, or remove it");
    }
}
