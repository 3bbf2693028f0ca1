package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.internal.engine.LockKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the locks of several keys of one name, all or none, one after the other in the order every process takes them
 * in: the byte order of the keys' UTF-8 text, which is the order of the lock table's {@code VARBINARY} primary key.
 * Two callers that want overlapping sets then always meet first at the lowest key they share, so neither can hold a key
 * the other waits for while waiting for one the other holds; this holds for the threads of one process too, since each
 * key is taken through its {@link Gate} like any other lock. The wait is one for all keys: each key gets what is left
 * of it (a key reached after the wait ended still gets its one attempt).
 *
 * <p>Each key is an ordinary acquisition through the {@link LockManager} (its gate, hand-off, watchdog, lost-lock
 * policy and fencing token), so what holds for one lock holds for each of these.
 */
final class MultiKeyLocks {

    private static final Logger log = LoggerFactory.getLogger(MultiKeyLocks.class);

    /** Unsigned byte order of UTF-8 text: how {@code VARBINARY} compares. */
    static final Comparator<String> KEY_ORDER = Comparator.comparing(
            (String key) -> key.getBytes(StandardCharsets.UTF_8), (a, b) -> Arrays.compareUnsigned(a, b));

    /**
     * What an attempt got: the handle, or the key that was still held elsewhere when the wait ended.
     *
     * @param handle the locks, all of them, or {@code null}
     * @param busy the key not acquired, when {@code handle} is {@code null}
     */
    record Attempt(
            @Nullable MultiLockHandle handle, @Nullable LockKey busy) {}

    private MultiKeyLocks() {}

    /**
     * The keys to lock, each once, in the order to take them.
     *
     * @throws IllegalArgumentException if there are none, more than {@link MultiLockHandle#MAX_KEYS}, or one is null
     *     or not a valid key; the message names which and what to pass instead
     */
    static List<LockKey> ordered(String name, @Nullable Collection<String> keys) {
        new LockKey(name, "-"); // the name's own check, before the keys' messages name them
        if (keys == null || keys.isEmpty()) {
            throw new IllegalArgumentException("No keys given to lock for " + name + " (" + keys + "): pass the keys"
                    + " to lock together, at least one, e.g. List.of(fromAccount, toAccount)");
        }
        TreeMap<String, LockKey> sorted = new TreeMap<>(KEY_ORDER);
        int index = 0;
        for (String key : keys) {
            try {
                sorted.putIfAbsent(key, new LockKey(name, key));
            } catch (IllegalArgumentException | NullPointerException ex) {
                throw new IllegalArgumentException(
                        "Key " + index + " of the " + keys.size() + " keys to lock for " + name + " is invalid: "
                                + ex.getMessage(),
                        ex);
            }
            index++;
        }
        if (sorted.size() > MultiLockHandle.MAX_KEYS) {
            throw new IllegalArgumentException("Too many keys to lock together for " + name + ": " + sorted.size()
                    + " distinct keys, at most " + MultiLockHandle.MAX_KEYS + " allowed; lock fewer keys per call, or"
                    + " lock what they belong to (e.g. the batch instead of each of its rows)");
        }
        return List.copyOf(sorted.values());
    }

    /**
     * Takes every key's lock, in order, within one wait; on any failure gives back those taken before returning or
     * throwing.
     *
     * @param keys from {@link #ordered}
     * @throws IllegalStateException if this thread holds a lock of the same name that sorts after a key it would have to
     *     wait for
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
     */
    static Attempt tryAcquire(
            LockManager manager,
            List<LockKey> keys,
            LockMode mode,
            Duration wait,
            @Nullable Duration lease,
            LockLostPolicy onLost)
            throws InterruptedException {
        refuseOutOfOrder(keys, manager.heldByCurrentThread(keys.get(0).name()));
        long deadline = Holds.deadline(wait);
        List<LockHandle> taken = new ArrayList<>(keys.size());
        try {
            for (LockKey key : keys) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                Optional<LockHandle> handle = manager.tryAcquire(key, mode, left, lease, onLost);
                if (handle.isEmpty()) {
                    giveBack(taken, null);
                    return new Attempt(null, key);
                }
                taken.add(handle.get());
            }
        } catch (InterruptedException | RuntimeException | Error ex) {
            giveBack(taken, ex);
            throw ex;
        }
        return new Attempt(new DefaultMultiLockHandle(keys.get(0).name(), mode, taken), null);
    }

    /**
     * Refuses a call that would wait for a key while this thread holds a lock of the name that sorts after it: its
     * holder would wait out of order, and two such threads (or processes) deadlock until their waits end. Keys the
     * thread holds already are re-entered without waiting, whatever their place.
     */
    private static void refuseOutOfOrder(List<LockKey> keys, List<LockKey> held) {
        if (held.isEmpty()) {
            return;
        }
        Set<LockKey> mine = new HashSet<>(held);
        LockKey firstWait =
                keys.stream().filter(key -> !mine.contains(key)).findFirst().orElse(null);
        if (firstWait == null) {
            return;
        }
        for (LockKey heldKey : held) {
            if (KEY_ORDER.compare(heldKey.key(), firstWait.key()) > 0) {
                throw new IllegalStateException("Thread "
                        + Thread.currentThread().getName() + " holds lock " + heldKey
                        + ", which sorts after " + firstWait + " that this call would wait for. Waiting for a key"
                        + " while holding one that sorts after it is how lock-order deadlocks begin (another thread"
                        + " may hold " + firstWait + " and wait for " + heldKey + "), so nothing was taken: lock all"
                        + " the keys in one acquireAll call, or release " + heldKey + " first");
            }
        }
    }

    /** Releases the locks taken so far, last first; what fails is added to {@code failure}, or logged. */
    private static void giveBack(List<LockHandle> taken, @Nullable Throwable failure) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            LockHandle handle = taken.get(i);
            try {
                handle.unlock();
            } catch (RuntimeException ex) {
                if (failure != null) {
                    failure.addSuppressed(ex);
                } else {
                    // The hold has ended all the same; the release goes on in the background.
                    log.warn(
                            "bizlock could not release {}/{} after the other keys were not acquired: {}",
                            handle.name(),
                            handle.key(),
                            ex.toString());
                }
            }
        }
    }
}
