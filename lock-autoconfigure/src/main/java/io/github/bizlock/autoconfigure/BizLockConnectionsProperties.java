package io.github.bizlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the small pool LEASE lock writes, renewals and fencing tokens run on, beside the application's pool. */
@ConfigurationProperties("bizlock.connections")
public class BizLockConnectionsProperties {

    /**
     * Most connections bizlock keeps for LEASE writes (acquire, renew, release) and fencing tokens, opened with the
     * lock DataSource's settings and never taken from its pool. Each is held for one statement; a write that finds all
     * busy queues for one within its wait time.
     */
    private int maxSize = 4;

    public int getMaxSize() {
        return maxSize;
    }

    public void setMaxSize(int maxSize) {
        this.maxSize = PropertyChecks.atLeast(
                "bizlock.connections.max-size",
                maxSize,
                1,
                "it must be at least 1",
                "Set bizlock.connections.max-size to 1 or more, such as 4, or remove it");
    }
}
