package io.github.bizlock.service;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;

/** A public {@link LockObserver} as the lock manager's observer. */
final class ObserverAdapter implements io.github.bizlock.internal.lock.LockObserver {

    private final LockObserver observer;

    ObserverAdapter(LockObserver observer) {
        this.observer = observer;
    }

    @Override
    public Acquisition acquisitionStarted(LockKey key, LockMode mode) {
        LockObserver.Acquisition started = observer.acquisitionStarted(key.name(), key.key(), mode);
        if (started == LockObserver.Acquisition.NONE) {
            return Acquisition.NONE;
        }
        return (outcome, waitNanos) -> started.finished(LockObserver.Outcome.valueOf(outcome.name()), waitNanos);
    }

    @Override
    public void released(LockKey key, LockMode mode, long holdNanos) {
        observer.released(key.name(), key.key(), mode, holdNanos);
    }

    @Override
    public void handedOver(LockKey key, LockMode mode) {
        observer.handedOver(key.name(), key.key(), mode);
    }

    @Override
    public void renewed(LockMode mode, int count) {
        observer.renewed(mode, count);
    }

    @Override
    public void renewalFailed(LockMode mode, int count) {
        observer.renewalFailed(mode, count);
    }

    @Override
    public void lost(LockLostEvent event) {
        observer.lost(event);
    }

    @Override
    public void purged(int rows) {
        observer.purged(rows);
    }

    @Override
    public void bound(String name, Binding binding) {
        observer.nameBound(name, binding.mode(), binding.permits());
    }

    @Override
    public String toString() {
        return observer.toString();
    }
}
