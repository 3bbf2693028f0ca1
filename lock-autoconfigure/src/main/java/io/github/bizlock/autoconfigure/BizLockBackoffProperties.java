package io.github.bizlock.autoconfigure;

import java.time.Duration;

/** Pauses between attempts on a LEASE lock held elsewhere. */
public class BizLockBackoffProperties {

    /** First pause between attempts on a lock held elsewhere; pauses double up to the maximum. */
    private Duration initial = Duration.ofMillis(5);

    /** Longest pause between attempts on a lock held elsewhere. */
    private Duration max = Duration.ofMillis(100);

    public Duration getInitial() {
        return initial;
    }

    public void setInitial(Duration initial) {
        this.initial = initial;
    }

    public Duration getMax() {
        return max;
    }

    public void setMax(Duration max) {
        this.max = max;
    }
}
