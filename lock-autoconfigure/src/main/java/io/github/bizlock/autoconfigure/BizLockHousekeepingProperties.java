package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockDefaults;
import java.time.Duration;

/** Deleting rows of locks that have been free for a while. */
public class BizLockHousekeepingProperties {

    /** Whether to delete rows of locks that have been free or expired for longer than the retention. */
    private boolean enabled = true;

    /** How often housekeeping runs (on one instance at a time). */
    private Duration interval = LockDefaults.HOUSEKEEPING_INTERVAL;

    /** How long a lock row is kept after its lock was released or its lease ended. */
    private Duration retention = LockDefaults.HOUSEKEEPING_RETENTION;

    /** Most rows deleted per statement. */
    private int batchSize = LockDefaults.HOUSEKEEPING_BATCH_SIZE;

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
        this.interval = PropertyChecks.positive(
                "bizlock.housekeeping.interval",
                interval,
                "Set bizlock.housekeeping.interval to a positive duration such as 10m, or set"
                        + " bizlock.housekeeping.enabled=false to turn housekeeping off");
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = PropertyChecks.notNegative(
                "bizlock.housekeeping.retention",
                retention,
                "Set bizlock.housekeeping.retention to 0 or a positive duration such as 1h, or remove it");
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = PropertyChecks.atLeast(
                "bizlock.housekeeping.batch-size",
                batchSize,
                1,
                "it must be at least 1",
                "Set bizlock.housekeeping.batch-size to 1 or more, such as 500, or remove it");
    }
}
