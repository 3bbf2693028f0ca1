package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Takes one permit of a semaphore of N permits: one of its N slots, each an ordinary lock of the semaphore's name with
 * the key {@code key#slot} (its own lease, watchdog, fencing token and lost-lock policy, through the
 * {@link LockManager}), so at most N holders have a slot at once in every mode. The name is bound to N in the
 * database, so every process counts the same slots.
 *
 * <p>A waiter tries every slot it does not hold without waiting, from a random one so that waiters spread over the
 * slots, and if all are taken pauses and tries again until its wait ends. Waiting on one slot would miss the others
 * freeing meanwhile; so waiting polls, in every mode, and no waiter is preferred: a freed slot goes to whichever
 * waiter tries it first.
 */
final class Permits {

    /** Joins a semaphore's key and a slot number into the slot's key. */
    static final String SLOT_SEPARATOR = "#";

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private Permits() {}

    /**
     * The semaphore's identity, checked with its number of permits.
     *
     * @throws IllegalArgumentException if {@code permits} is not between 1 and {@link PermitHandle#MAX_PERMITS}, or
     *     the name or key is invalid, or the key leaves no room for the slot number; the message says what to pass
     */
    static LockKey semaphore(String name, String key, int permits) {
        LockKey semaphore = new LockKey(name, key);
        if (permits < 1) {
            throw new IllegalArgumentException("A semaphore needs at least 1 permit, but " + permits + " were asked"
                    + " for " + semaphore + "; pass how many holders may hold it at once (1 to "
                    + PermitHandle.MAX_PERMITS + ")");
        }
        if (permits > PermitHandle.MAX_PERMITS) {
            throw new IllegalArgumentException("A semaphore has at most " + PermitHandle.MAX_PERMITS + " permits, but "
                    + permits + " were asked for " + semaphore + ": every waiter tries the free slots one by one, and"
                    + " in ROW and NAMED mode each held permit holds a connection. Pass at most "
                    + PermitHandle.MAX_PERMITS + ", or limit a coarser thing (split the work into groups, each a"
                    + " semaphore of its own key)");
        }
        try {
            new LockKey(name, slotKey(key, permits - 1));
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(
                    "The semaphore key of " + semaphore + " leaves no room for its slot"
                            + " number: each permit is the key followed by '" + SLOT_SEPARATOR + "' and the slot ("
                            + slotKey("", permits - 1) + " for the last one), and " + ex.getMessage(),
                    ex);
        }
        return semaphore;
    }

    /** The key of a semaphore's slot. */
    static String slotKey(String key, int slot) {
        return key + SLOT_SEPARATOR + slot;
    }

    /**
     * Takes a free slot of the semaphore, trying until the wait ends.
     *
     * @param semaphore from {@link #semaphore}
     * @return the permit, or empty if every slot was held elsewhere throughout the wait
     * @throws IllegalStateException if this thread holds every slot itself: waiting could only end empty
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
     */
    static Optional<PermitHandle> tryAcquire(
            LockManager manager,
            LockKey semaphore,
            int permits,
            LockMode mode,
            Duration wait,
            @Nullable Duration lease,
            LockLostPolicy onLost)
            throws InterruptedException {
        Binding binding = new Binding(mode, permits);
        Set<LockKey> mine = new HashSet<>(manager.heldByCurrentThread(semaphore.name()));
        long deadline = Holds.deadline(wait);
        // Bound within the caller's wait, not a slot try's: the name's first use writes its binding.
        manager.bind(semaphore.name(), binding, wait, lease, deadline);
        int first = ThreadLocalRandom.current().nextInt(permits);
        for (int round = 1; ; round++) {
            int heldHere = 0;
            for (int i = 0; i < permits; i++) {
                int slot = (first + i) % permits;
                LockKey slotKey = new LockKey(semaphore.name(), slotKey(semaphore.key(), slot));
                if (mine.contains(slotKey)) {
                    heldHere++; // permits are not reentrant: this thread takes another slot
                    continue;
                }
                Optional<LockHandle> taken = manager.tryAcquire(slotKey, binding, Duration.ZERO, lease, onLost);
                if (taken.isPresent()) {
                    return Optional.of(new DefaultPermitHandle(semaphore, permits, slot, taken.get()));
                }
            }
            if (heldHere == permits) {
                throw new IllegalStateException("Thread "
                        + Thread.currentThread().getName() + " holds all "
                        + permits + " permits of " + semaphore + " already, so waiting for another could only end"
                        + " empty; give one back before taking the next");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, pause(round)));
        }
    }

    /** The pause after round {@code round} (from 1): doubling from 5 ms to 100 ms, drawn from its upper half. */
    private static long pause(int round) {
        long ceiling = Math.min(MAX_PAUSE_NANOS, FIRST_PAUSE_NANOS << Math.min(round - 1, 10));
        return ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    }
}
