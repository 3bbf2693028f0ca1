package io.github.bizlock.internal.lock;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.PermitsConflictException;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps every lock name in the one mode it is bound to, and in what it names: plain locks, or a semaphore of one
 * number of permits. Locks of different modes never exclude each other, so a name taken in two modes (an annotation in
 * ROW, a template call in the default LEASE, or instances in the middle of a change of {@code bizlock.mode}) could have
 * two holders at once; and processes that gave one semaphore different numbers of permits would each let in as many
 * as they think there are. The first request for a name in this process binds it in the {@link ModeBindingStore}, or
 * finds what another process bound it to, and remembers it: later requests are checked without a round trip. A
 * request in another mode, or with other permits, is refused before it reaches a gate.
 */
final class ModeBindings {

    private final ModeBindingStore store;
    private final LockObserver observer;
    private final Map<String, Binding> bound = new ConcurrentHashMap<>();

    ModeBindings(ModeBindingStore store, LockObserver observer) {
        this.store = store;
        this.observer = observer;
    }

    /**
     * The permits of the semaphore {@code name} names, or {@link Binding#LOCKS} for a name of plain locks, as far as
     * this process knows: a name it never checked counts as plain locks.
     */
    int permits(String name) {
        Binding binding = bound.get(name);
        return binding == null ? Binding.LOCKS : binding.permits();
    }

    /**
     * Lets a request for a lock of this name in this mode pass.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) asking the store must have ended
     * @throws LockModeConflictException if the name is bound to another mode
     * @throws PermitsConflictException if the name is bound to a semaphore
     */
    void check(String name, LockMode mode, long deadlineNanos) {
        check(name, Binding.locks(mode), deadlineNanos);
    }

    /**
     * Lets a request for a lock of this name with this binding pass.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) asking the store must have ended
     * @throws LockModeConflictException if the name is bound to another mode
     * @throws PermitsConflictException if the name is bound to other permits
     */
    void check(String name, Binding wanted, long deadlineNanos) {
        Binding binding = bound.get(name);
        if (binding == null) {
            // Threads that miss at once each ask the store, which gives them all the same answer.
            binding = store.bind(name, wanted, deadlineNanos);
            if (bound.put(name, binding) == null) {
                observer.bound(name, binding);
            }
        }
        if (binding.mode() != wanted.mode()) {
            throw new LockModeConflictException(
                    name, binding.mode(), wanted.mode(), store.changeStatements(name, wanted));
        }
        if (binding.permits() != wanted.permits()) {
            throw new PermitsConflictException(
                    name, binding.permits(), wanted.permits(), store.changeStatements(name, wanted));
        }
    }
}
