package io.github.bizlock;

/**
 * Told when a held lock is lost. Called on a thread of its own ({@code bizlock-lost-listeners}), one loss at a time in
 * the order the losses were found, after the loss was logged and counted and, under {@link LockLostPolicy#INTERRUPT},
 * the holder interrupted. A slow listener delays only the notifications after it, never the watchdog's renewals or an
 * unlock; closing the lock manager waits at most 5 s for listeners to finish.
 */
@FunctionalInterface
public interface LockLostListener {

    void onLockLost(LockLostEvent event);
}
