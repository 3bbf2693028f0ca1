package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A lock as this process sees it at one moment: held by one of its threads, or waited for, or both.
 *
 * @param key which lock
 * @param mode its mode
 * @param holderThread the name of the thread holding it, or {@code null} while threads only wait for it
 * @param fencingToken the token of the current hold, or 0 while not held
 * @param heldFor how long it has been held, or {@link Duration#ZERO} while not held
 * @param renewedByWatchdog whether the watchdog renews it
 * @param lost whether the hold was lost (its lease ended or was taken over) and not unlocked yet
 * @param onLost what happens to the holder's work when the lock is lost, or {@code null} while not held
 * @param waiting how many other threads of this process wait for it
 */
public record LockSnapshot(
        LockKey key,
        LockMode mode,
        @Nullable String holderThread,
        long fencingToken,
        Duration heldFor,
        boolean renewedByWatchdog,
        boolean lost,
        @Nullable LockLostPolicy onLost,
        int waiting) {}
