package io.github.bizlock.internal.lock;

import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Loss;

/**
 * Frees the grants whose holder thread ended without unlocking them (an exception or {@code Error} that skipped the
 * unlock, a virtual thread that finished): the loss is reported to the holder's listeners, the grant is released in
 * the background, and the local lock that nobody could unlock passes to the next waiting thread of this process. A
 * grant handed from one thread to the next has no holder meanwhile, and is not touched.
 */
final class AbandonedHolds {

    private final Gates gates;
    private final HandOff handOff;
    private final LossReporter losses;
    private final LockObserver observer;

    AbandonedHolds(Gates gates, HandOff handOff, LossReporter losses, LockObserver observer) {
        this.gates = gates;
        this.handOff = handOff;
        this.losses = losses;
        this.observer = observer;
    }

    /**
     * Called by the watchdog, which has stopped renewing {@code held}, for a hold whose thread has ended.
     *
     * @return whether it freed the grant: {@code false} if the grant had moved on (handed over and taken over by a
     *     live thread, released) by the time it was looked at under the grant's monitor
     */
    boolean free(HeldGrant held, Hold hold) {
        if (!held.heldByEnded(hold)) {
            return false;
        }
        losses.reportLost(
                held,
                new Loss(
                        LossCause.ABANDONED,
                        "its holder thread " + hold.thread.getName() + " ended without unlocking it; bizlock released"
                                + " it rather than renew it for the life of the process"));
        handOff.releaseLost(held);
        held.markReleased();
        if (gates.abandon(held, hold.thread)) {
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
        }
        return true;
    }
}
