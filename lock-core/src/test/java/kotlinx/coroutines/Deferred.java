package kotlinx.coroutines;

/**
 * Stands in for Kotlin's {@code kotlinx.coroutines.Deferred} (not on lock-core's classpath): {@code @DistributedLock}
 * recognises such return types by name, so that a method returning one is refused without the library present.
 */
public interface Deferred<T> {}
