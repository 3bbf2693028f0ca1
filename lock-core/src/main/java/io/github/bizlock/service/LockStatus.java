package io.github.bizlock.service;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockService} at one moment, as this process sees it: for health checks, gauges and an operator's listing.
 *
 * @param instanceId this instance's owner id in lock rows
 * @param modes the modes it can lock in
 * @param held locks its threads hold
 * @param waiting its threads waiting for a lock
 * @param renewed locks the watchdog renews
 * @param renewalsOverdue held leases whose renewal has been failing for half a lease (about to be lost)
 */
public record LockStatus(
        String instanceId, Set<LockMode> modes, int held, int waiting, int renewed, int renewalsOverdue) {

    static LockStatus of(LockManager manager) {
        return new LockStatus(
                manager.instanceId(),
                Set.copyOf(manager.modes()),
                manager.heldCount(),
                manager.waitingCount(),
                manager.renewedCount(),
                manager.overdueRenewalCount());
    }

    /**
     * A lock this process holds or waits for.
     *
     * @param name the lock's name
     * @param key the lock's key
     * @param mode its mode
     * @param holderThread the name of the thread holding it, or {@code null} while threads only wait for it
     * @param fencingToken the token of the current hold, or 0 while not held
     * @param heldFor how long it has been held, or {@link Duration#ZERO} while not held
     * @param renewedByWatchdog whether the watchdog renews it
     * @param lost whether the hold was lost and not unlocked yet
     * @param onLost what happens to the holder's work when the lock is lost, or {@code null} while not held
     * @param waiting how many other threads of this process wait for it
     * @param permits the number of permits of the semaphore whose slot this lock is (its key is {@code key#slot}), or 0
     *     for a plain lock
     */
    public record LocalLock(
            String name,
            String key,
            LockMode mode,
            @Nullable String holderThread,
            long fencingToken,
            Duration heldFor,
            boolean renewedByWatchdog,
            boolean lost,
            @Nullable LockLostPolicy onLost,
            int waiting,
            int permits) {

        static List<LocalLock> of(LockManager manager) {
            return manager.locks().stream()
                    .map(lock -> of(lock, manager.permits(lock.key().name())))
                    .toList();
        }

        private static LocalLock of(LockSnapshot lock, int permits) {
            return new LocalLock(
                    lock.key().name(),
                    lock.key().key(),
                    lock.mode(),
                    lock.holderThread(),
                    lock.fencingToken(),
                    lock.heldFor(),
                    lock.renewedByWatchdog(),
                    lock.lost(),
                    lock.onLost(),
                    lock.waiting(),
                    permits);
        }
    }
}
