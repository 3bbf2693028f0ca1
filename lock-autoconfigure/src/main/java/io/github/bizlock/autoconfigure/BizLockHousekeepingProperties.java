package io.github.bizlock.autoconfigure;

import java.time.Duration;

/** Deleting rows of locks that have been free for a while. */
public class BizLockHousekeepingProperties {

    /** Whether to delete rows of locks that have been free or expired for longer than the retention. */
    private boolean enabled = true;

    /** How often housekeeping runs (on one instance at a time). */
    private Duration interval = Duration.ofMinutes(10);

    /** How long a lock row is kept after its lock was released or its lease ended. */
    private Duration retention = Duration.ofHours(1);

    /** Most rows deleted per statement. */
    private int batchSize = 500;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getInterval() {
        return interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = BizLockProperties.notNegative(retention, "bizlock.housekeeping.retention");
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }
}
