package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockDefaults;
import java.time.Duration;

/** Pauses between attempts on a LEASE lock held elsewhere. */
public class BizLockBackoffProperties {

    /** First pause between attempts on a lock held elsewhere; pauses double up to the maximum. */
    private Duration initial = LockDefaults.BACKOFF_INITIAL;

    /** Longest pause between attempts on a lock held elsewhere. */
    private Duration max = LockDefaults.BACKOFF_MAX;

    public Duration getInitial() {
        return initial;
    }

    public void setInitial(Duration initial) {
        this.initial = PropertyChecks.positive(
                "bizlock.backoff.initial",
                initial,
                "Set bizlock.backoff.initial to a positive duration no longer than bizlock.backoff.max, such as "
                        + PropertyChecks.text(LockDefaults.BACKOFF_INITIAL) + ", or remove it");
    }

    public Duration getMax() {
        return max;
    }

    public void setMax(Duration max) {
        this.max = PropertyChecks.positive(
                "bizlock.backoff.max",
                max,
                "Set bizlock.backoff.max to a positive duration no shorter than bizlock.backoff.initial, such as "
                        + PropertyChecks.text(LockDefaults.BACKOFF_MAX) + ", or remove it");
    }

    /**
     * The maximum, checked against the first pause here, since each setter sees only its own.
     *
     * @throws BizLockPropertyException if the maximum is shorter than the first pause
     */
    Duration checkedMax() {
        if (max.compareTo(initial) < 0) {
            throw new BizLockPropertyException(
                    "bizlock.backoff.max",
                    PropertyChecks.text(max),
                    "it is shorter than bizlock.backoff.initial (" + PropertyChecks.text(initial) + ")",
                    "Set bizlock.backoff.max to at least bizlock.backoff.initial (" + PropertyChecks.text(initial)
                            + "), or bizlock.backoff.initial to at most " + PropertyChecks.text(max));
        }
        return max;
    }
}
