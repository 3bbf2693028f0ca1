package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.MultiLockHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The handles of the keys {@link MultiKeyLocks} took, one per key, released together. */
final class DefaultMultiLockHandle implements MultiLockHandle {

    private final String name;
    private final LockMode mode;
    private final Map<String, LockHandle> handles = new LinkedHashMap<>();
    private final List<LockHandle> taken;
    private final Thread holder = Thread.currentThread();
    private volatile boolean unlocked;

    /** @param taken one handle per key, in the order they were taken, by the calling thread */
    DefaultMultiLockHandle(String name, LockMode mode, List<LockHandle> taken) {
        this.name = name;
        this.mode = mode;
        this.taken = List.copyOf(taken);
        for (LockHandle handle : taken) {
            handles.put(handle.key(), handle);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> keys() {
        return List.copyOf(handles.keySet());
    }

    @Override
    public LockMode mode() {
        return mode;
    }

    @Override
    public long fencingToken(String key) {
        return handle(key).fencingToken();
    }

    @Override
    public boolean isHeld() {
        return !unlocked && taken.stream().allMatch(LockHandle::isHeld);
    }

    @Override
    public boolean isHeld(String key) {
        return !unlocked && handle(key).isHeld();
    }

    @Override
    public void unlock() {
        if (unlocked) {
            throw new IllegalMonitorStateException(
                    "Locks " + name + "/" + handles.keySet() + " were already unlocked through this handle");
        }
        if (Thread.currentThread() != holder) {
            throw new IllegalMonitorStateException("Locks " + name + "/" + handles.keySet() + " are held by thread "
                    + holder.getName() + "; only the thread that acquired them may unlock them");
        }
        unlocked = true;
        @Nullable RuntimeException failure = null;
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).unlock();
            } catch (RuntimeException ex) {
                failure = add(failure, ex);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        unlock();
    }

    /** The first failure to throw, a lost lock before any other; the rest suppressed by it. */
    private static RuntimeException add(@Nullable RuntimeException failure, RuntimeException next) {
        if (failure == null) {
            return next;
        }
        if (next instanceof LockLostException && !(failure instanceof LockLostException)) {
            next.addSuppressed(failure);
            return next;
        }
        failure.addSuppressed(next);
        return failure;
    }

    private LockHandle handle(String key) {
        LockHandle handle = handles.get(key);
        if (handle == null) {
            throw new IllegalArgumentException("Key '" + key + "' is not one of the keys locked by this handle, "
                    + handles.keySet() + "; ask for the token of a key that was passed to acquireAll");
        }
        return handle;
    }

    @Override
    public String toString() {
        return "MultiLockHandle[" + mode + " " + name + "/"
                + taken.stream()
                        .map(handle -> handle.key() + (handle.isHeld() ? "" : " (not held)"))
                        .collect(Collectors.joining(", ", "[", "]"))
                + (unlocked ? ", unlocked" : "") + "]";
    }
}
