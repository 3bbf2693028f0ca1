package io.github.bizlock.internal.lock;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One key's read grant in this process ({@link ReadShares}), and the holds of the threads that share it; guarded by
 * {@link #lock}.
 */
final class ReadShare {
    final Gate.Id id;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final Map<Thread, Hold> holds = new HashMap<>();
    final Map<Thread, Integer> counts = new HashMap<>();

    @Nullable
    HeldGrant held;

    boolean busy; // a grant is being fetched or given back
    long grantedNanos;
    int users;

    ReadShare(Gate.Id id) {
        this.id = id;
    }
}
