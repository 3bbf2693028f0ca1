package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostException;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Loss;
import org.jspecify.annotations.Nullable;

/** Ends the read holds of {@link ReadShares}: a thread's unlock, or the watchdog's for a thread that ended reading. */
final class ReadShareReleases {

    private final ReadShares shares;
    private final HandOff handOff;
    private final LossReporter losses;
    private final LockObserver observer;

    ReadShareReleases(ReadShares shares, HandOff handOff, LossReporter losses, LockObserver observer) {
        this.shares = shares;
        this.handOff = handOff;
        this.losses = losses;
        this.observer = observer;
    }

    /** The exception for a read hold whose grant was lost. */
    LockLostException lostException(Hold hold) {
        return losses.lostException(hold);
    }

    /**
     * Ends one read hold. The last thread sharing the grant gives it back to the database; readers that came meanwhile
     * wait for that, then take the next grant.
     *
     * @throws io.github.bizlock.LockLostException if the grant was lost while held
     * @throws io.github.bizlock.LockReleaseException if the database did not answer the release in time
     */
    void unlock(ReadLockHandle handle) {
        ReadShare share = handle.share;
        Hold hold = handle.hold;
        HeldGrant held = hold.heldGrant;
        boolean last;
        share.lock.lock();
        try {
            if (handle.unlocked) {
                throw new IllegalMonitorStateException(
                        "Read lock " + share.id.key() + " was already unlocked through this handle");
            }
            if (hold.thread != Thread.currentThread()) {
                throw new IllegalMonitorStateException("Read lock " + share.id.key() + " is held by thread "
                        + hold.thread.getName() + "; only the thread that acquired a lock may unlock it");
            }
            handle.unlocked = true;
            int count = share.counts.merge(hold.thread, -1, Integer::sum);
            if (count == 0) {
                share.counts.remove(hold.thread);
                share.holds.remove(hold.thread);
                held.sharers().remove(hold);
                hold.clearInterruptForLoss();
            }
            last = share.counts.isEmpty();
            if (last) {
                share.busy = true; // no grant is fetched until this one is given back
            }
        } finally {
            share.lock.unlock();
        }
        if (!last) {
            shares.leave(share);
            Loss loss = held.loss();
            if (loss != null) {
                throw losses.lostException(hold);
            }
            return;
        }
        @Nullable Loss loss = null;
        try {
            handOff.stopRenewing(held);
            loss = held.loss();
            if (loss != null) {
                handOff.releaseLost(held);
            } else {
                @Nullable Loss atRelease = handOff.release(held);
                if (atRelease != null) {
                    loss = new Loss(atRelease.cause(), "at unlock, " + atRelease.reason());
                }
            }
        } finally {
            boolean firstReport = loss != null && held.markLost(loss);
            held.markReleased();
            share.lock.lock();
            try {
                share.held = null;
                share.busy = false;
                share.changed.signalAll();
            } finally {
                share.lock.unlock();
            }
            shares.leave(share);
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
            if (firstReport) {
                losses.notifyLost(hold, loss);
            }
        }
        if (loss != null) {
            throw losses.lostException(hold);
        }
    }

    /**
     * Ends the read hold of a thread that ended without unlocking it, for the watchdog: nobody can unlock it any more,
     * and renewing the grant for it would keep writers out for the life of the process. Reported lost to it
     * ({@link LossCause#ABANDONED}); the last hold's grant is released in the background.
     *
     * @return whether the hold was still in the grant's share
     */
    boolean abandon(HeldGrant held, Hold ended) {
        ReadShare share =
                shares.share(new Gate.Id(held.engine().mode(), held.grant().key()));
        if (share == null) {
            return false;
        }
        int count;
        boolean last;
        share.lock.lock();
        try {
            if (share.held != held || share.holds.get(ended.thread) != ended) {
                return false;
            }
            count = share.counts.remove(ended.thread);
            share.holds.remove(ended.thread);
            held.sharers().remove(ended);
            last = share.counts.isEmpty();
            if (last) {
                share.held = null;
                share.changed.signalAll();
            }
        } finally {
            share.lock.unlock();
        }
        for (int i = 0; i < count; i++) {
            shares.leave(share);
        }
        losses.notifyLost(
                ended,
                new Loss(
                        LossCause.ABANDONED,
                        "its holder thread " + ended.thread.getName() + " ended without unlocking its read lock;"
                                + " bizlock ended that read hold rather than renew it for the life of the process"));
        if (last) {
            handOff.stopRenewing(held);
            handOff.releaseLost(held);
            held.markReleased();
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - ended.acquiredNanos);
        }
        return true;
    }
}
