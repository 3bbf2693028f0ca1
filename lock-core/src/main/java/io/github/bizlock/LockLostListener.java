package io.github.bizlock;

/** Told when a held lock is lost. Called on the watchdog's or the unlocking thread; keep it short. */
@FunctionalInterface
public interface LockLostListener {

    void onLockLost(LockLostEvent event);
}
