package io.github.bizlock.internal.lock;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.internal.engine.ModeBindingStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps every lock name in the one mode it is bound to. Locks of different modes never exclude each other, so a name
 * taken in two modes (an annotation in ROW, a template call in the default LEASE, or instances in the middle of a
 * change of {@code bizlock.mode}) could have two holders at once. The first request for a name in this process binds
 * it in the {@link ModeBindingStore}, or finds the mode another process bound it to, and remembers it: later requests
 * are checked without a round trip. A request in another mode is refused before it reaches a gate.
 */
final class ModeBindings {

    private final ModeBindingStore store;
    private final Map<String, LockMode> bound = new ConcurrentHashMap<>();

    ModeBindings(ModeBindingStore store) {
        this.store = store;
    }

    /**
     * Lets a request for a lock of this name in this mode pass.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) asking the store must have ended
     * @throws LockModeConflictException if the name is bound to another mode
     */
    void check(String name, LockMode mode, long deadlineNanos) {
        LockMode boundMode = bound.get(name);
        if (boundMode == null) {
            // Threads that miss at once each ask the store, which gives them all the same answer.
            boundMode = store.bind(name, mode, deadlineNanos);
            bound.put(name, boundMode);
        }
        if (boundMode != mode) {
            throw new LockModeConflictException(name, boundMode, mode, store.changeStatements(name, mode));
        }
    }
}
