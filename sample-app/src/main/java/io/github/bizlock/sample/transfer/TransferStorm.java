package io.github.bizlock.sample.transfer;

/**
 * What a storm of concurrent transfers in both directions did.
 *
 * @param transfers transfers asked for, half in each direction
 * @param booked transfers that moved money
 * @param refused transfers refused for lack of money
 * @param failed transfers that failed: a lock not acquired within its wait, a deadlock (0 is right)
 * @param elapsedMillis how long the storm took
 * @param report the accounts afterwards
 */
public record TransferStorm(
        int transfers, int booked, int refused, int failed, long elapsedMillis, TransferReport report) {}
