package io.github.bizlock.actuate;

import io.github.bizlock.LockMode;
import io.github.bizlock.service.LockStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A semaphore this instance holds permits of, as the {@code bizlocks} endpoint lists it: a permit is a lock of the
 * semaphore's name whose key is {@code key#slot}, and those slot locks are listed one by one under {@code local} too.
 *
 * @param name the semaphore's name
 * @param key the semaphore's key (without the slot), or {@value BizLocksEndpoint#MASK}
 * @param mode its mode
 * @param permits how many holders it lets in at once, across the cluster
 * @param slotsHeld the slots this instance's threads hold, in order
 */
public record InstancePermits(String name, String key, LockMode mode, int permits, List<Integer> slotsHeld) {

    /** Separates a semaphore's key from the slot in a slot lock's key, as the lock manager writes it. */
    private static final char SLOT_SEPARATOR = '#';

    /** The semaphores whose permits {@code locks} hold, in the order of their first held slot. */
    static List<InstancePermits> of(List<LockStatus.LocalLock> locks, boolean showKey) {
        Map<List<String>, List<LockStatus.LocalLock>> bySemaphore = new LinkedHashMap<>();
        for (LockStatus.LocalLock lock : locks) {
            int separator = lock.key().lastIndexOf(SLOT_SEPARATOR);
            // Every key of a name bound to permits is a slot's, so the separator is there; the check only guards.
            if (lock.permits() > 0 && lock.holderThread() != null && separator >= 0) {
                bySemaphore
                        .computeIfAbsent(
                                List.of(lock.name(), lock.key().substring(0, separator)), k -> new ArrayList<>())
                        .add(lock);
            }
        }
        return bySemaphore.entrySet().stream()
                .map(entry -> {
                    LockStatus.LocalLock first = entry.getValue().get(0);
                    return new InstancePermits(
                            entry.getKey().get(0),
                            showKey ? entry.getKey().get(1) : BizLocksEndpoint.MASK,
                            first.mode(),
                            first.permits(),
                            entry.getValue().stream()
                                    .map(lock -> slot(lock.key()))
                                    .sorted(Comparator.naturalOrder())
                                    .toList());
                })
                .toList();
    }

    private static int slot(String slotKey) {
        return Integer.parseInt(slotKey.substring(slotKey.lastIndexOf(SLOT_SEPARATOR) + 1));
    }
}
