package io.github.bizlock.internal.lock;

import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The registry of the {@link Gate}s of the keys this process's threads hold or wait for: entering and leaving them, and
 * the counts and snapshots read from them.
 */
final class Gates {

    private final Map<Gate.Id, Gate> gates = new ConcurrentHashMap<>();
    private final boolean fair;
    private final HandOff handOff;

    Gates(boolean fair, HandOff handOff) {
        this.fair = fair;
        this.handOff = handOff;
    }

    Gate enter(Gate.Id id) {
        return gates.compute(id, (key, gate) -> {
            Gate entered = gate != null ? gate : new Gate(key, fair);
            entered.users++;
            return entered;
        });
    }

    void leave(Gate gate) {
        boolean[] last = new boolean[1];
        gates.computeIfPresent(gate.id, (key, current) -> {
            last[0] = --current.users == 0;
            return last[0] ? null : current;
        });
        HeldGrant handedOver = gate.heldGrant;
        if (last[0] && handedOver != null) {
            // Handed over to threads that then gave up waiting: nobody is left to take it.
            gate.heldGrant = null;
            handOff.releaseHandedOver(handedOver);
        }
    }

    /**
     * Frees the gate of a grant whose holder thread ended while holding it: the grant leaves the gate, and the local lock
     * that nobody could unlock goes to the next waiting thread, which then asks the engine for a new grant.
     *
     * @return whether the grant was in a gate that {@code holder} held
     */
    boolean abandon(HeldGrant held, Thread holder) {
        for (Gate gate : gates.values()) {
            if (gate.heldGrant == held && gate.local.owner() == holder) {
                // Written as the holder would before its unlock: the next owner of the local lock reads them. Each of
                // its re-entries entered the gate as a user of its own, and leaves it here.
                int holds = Math.max(1, gate.holds);
                gate.heldGrant = null;
                gate.holds = 0;
                for (int i = 0; i < holds; i++) {
                    leave(gate);
                }
                return gate.local.releaseFor(holder);
            }
        }
        return false;
    }

    /** The thread holding the gate's local lock (a write lock, for a read-write lock's key), or {@code null}. */
    @Nullable
    Thread holder(Gate.Id id) {
        Gate gate = gates.get(id);
        return gate != null ? gate.local.owner() : null;
    }

    /** The keys of {@code name}, in any mode, whose locks the calling thread holds (or is acquiring) now. */
    List<LockKey> heldByCurrentThread(String name) {
        List<LockKey> held = new ArrayList<>();
        for (Gate gate : gates.values()) {
            if (gate.id.key().name().equals(name) && gate.local.isHeldByCurrentThread()) {
                held.add(gate.id.key());
            }
        }
        return held;
    }

    /** Threads of this process that wait for a lock another thread or process holds. */
    int waitingCount() {
        return gates.values().stream().mapToInt(Gate::waiting).sum();
    }

    /** Locks held by this process, counting a reentrant hold once. */
    int heldCount() {
        return (int)
                gates.values().stream().filter(gate -> gate.heldGrant != null).count();
    }

    /** Threads of this process that hold or wait for a lock. */
    int activeThreadCount() {
        return gates.values().stream().mapToInt(gate -> gate.users).sum();
    }

    /** The locks this process holds or waits for now, longest held first. */
    List<LockSnapshot> snapshots() {
        long now = System.nanoTime();
        List<LockSnapshot> locks = new ArrayList<>();
        for (Gate gate : gates.values()) {
            HeldGrant held = gate.heldGrant;
            Hold hold = held != null ? held.hold() : null;
            int waiting = gate.waiting();
            if (held == null || hold == null) {
                if (waiting > 0) {
                    locks.add(new LockSnapshot(
                            gate.id.key(), gate.id.mode(), null, 0, Duration.ZERO, false, false, null, waiting));
                }
                continue;
            }
            locks.add(new LockSnapshot(
                    gate.id.key(),
                    gate.id.mode(),
                    hold.thread.getName(),
                    hold.token(),
                    Duration.ofNanos(Math.max(0, now - hold.acquiredNanos)),
                    held.renewedByWatchdog(),
                    !held.isValid(),
                    hold.onLost,
                    waiting));
        }
        locks.sort(Comparator.comparing(LockSnapshot::heldFor).reversed());
        return locks;
    }
}
