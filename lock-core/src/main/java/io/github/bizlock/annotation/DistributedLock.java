package io.github.bizlock.annotation;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the method holding a distributed lock: at most one call per lock ({@link #name()}, evaluated {@link #key()})
 * runs at a time across all instances of the application.
 *
 * <pre>{@code
 * @DistributedLock(name = "order", key = "#order.id", waitTime = "3s")
 * @Transactional
 * public Receipt submit(Order order) { ... }
 * }</pre>
 *
 * <p>The lock is taken before a {@code @Transactional} method's transaction begins and released after it ends. When
 * the method runs inside a transaction that was already active, the lock is released when that transaction completes,
 * so the next holder never reads uncommitted data.
 *
 * <p>The lock is taken by the bean's proxy, so only calls through it are locked: calls from another bean on an instance
 * method of a Spring bean that returns when its work is done. A bean whose annotated methods the proxy cannot intercept
 * (private, static, final under a class-based proxy, missing from a JDK proxy's interfaces, or the bean not proxied at
 * all) or that return before their work is done (futures, reactive publishers, Kotlin {@code suspend} functions) fails
 * to be created. Calls from inside the bean ({@code this.submit(...)}) and objects that are not Spring beans cannot be
 * seen: they run without the lock.
 *
 * <p>Put it on a method, on a class or interface (every public method then locks), or on an annotation of your own to
 * use that as a shorthand:
 *
 * <pre>{@code
 * @Retention(RetentionPolicy.RUNTIME)
 * @Target(ElementType.METHOD)
 * @DistributedLock(name = "order", key = "#p0.id", waitTime = "3s")
 * public @interface OrderLock {}
 * }</pre>
 *
 * <p>Spring AOT registers the reflection a native image needs to call the annotated methods and their fallbacks
 * ({@link Reflective}); the key expressions' own use of the arguments' types is the application's to register (see
 * {@code docs/spring-boot.md}).
 */
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
@Reflective(DistributedLockReflectiveProcessor.class)
public @interface DistributedLock {

    /** The key used when {@link #key()} is empty: every call of the method shares one lock. */
    String DEFAULT_KEY = "*";

    /** The lock's name (the {@code biz_type} column); defaults to {@code SimpleClassName.methodName}. */
    String name() default "";

    /**
     * SpEL expressions over the method's parameters giving the lock's key, e.g. {@code #order.id}, {@code #p0},
     * {@code #a1}, or {@code @tenants.current()}; several are joined with {@code :}. Each must evaluate to a non-null
     * value with a text of its own ({@code toString()}): a string, number, enum, record and the like, not an array or
     * an object whose class inherits {@code Object.toString()}. The key is at most 512 bytes of UTF-8, without U+0000
     * or lone surrogates. Empty means one lock for all calls ({@value #DEFAULT_KEY}).
     */
    String[] key() default {};

    /**
     * SpEL expressions giving several keys to lock together, all or none, instead of one ({@link #key()} joins its
     * values into one key): {@code keys = "#transfer.accountIds"}, or {@code keys = {"#from.id", "#to.id"}}. Each
     * expression evaluates to one key, or to a collection or array whose elements are keys; each key follows the rules
     * of {@link #key()}'s values. The keys are taken in one order that every instance shares, within one wait, as by
     * {@link io.github.bizlock.LockTemplate#acquireAll LockTemplate.acquireAll}, so calls naming the same keys in
     * opposite orders never deadlock; a key given twice is locked once, and a call whose expressions give no key at all
     * fails with {@code IllegalArgumentException}. A method may set {@code key} or {@code keys}, not both: the bean
     * fails to be created.
     *
     * <pre>{@code
     * @DistributedLock(name = "account", keys = {"#from", "#to"})
     * public void transfer(String from, String to, long cents) { ... }
     * }</pre>
     */
    String[] keys() default {};

    /**
     * Makes the lock a semaphore of this many permits: at most {@code permits} calls per key run at once across all
     * instances, each holding a permit with its own lease and fencing token, as with
     * {@link io.github.bizlock.LockTemplate#acquirePermit LockTemplate.acquirePermit}; waiting for a permit polls. 0 (the
     * default) is a plain lock: one call per key. At most {@link io.github.bizlock.PermitHandle#MAX_PERMITS}, and not
     * with {@link #keys()}: the bean fails to be created otherwise. The name is bound to its number of permits for every
     * instance, so all methods and calls that use the name must give the same number.
     *
     * <pre>{@code
     * @DistributedLock(name = "export", key = "#tenant", permits = 4)
     * public void export(String tenant) { ... }
     * }</pre>
     */
    int permits() default 0;

    /**
     * How long to wait for the lock when it is held elsewhere, e.g. {@code 3s}, {@code 500ms} or {@code PT3S}; {@code 0}
     * tries once. Empty means {@code bizlock.wait-time}. Property placeholders are resolved.
     */
    String waitTime() default "";

    /**
     * A fixed lease, e.g. {@code 30s}: the lock frees itself this long after it was taken, even if the method still runs.
     * At most 365 days ({@link io.github.bizlock.LockOptions#MAX_LEASE_TIME}). Empty means {@code bizlock.lease-time},
     * and when that is unset too a watchdog renews the lease while the method runs. Property placeholders are
     * resolved.
     */
    String leaseTime() default "";

    /** The lock mode; empty (the default) means {@code bizlock.mode}. */
    LockMode[] mode() default {};

    /**
     * {@code WRITE} (the default): the lock excludes every other holder; {@code READ}: the method shares the lock with
     * other {@code READ} calls of the same key, and waits for {@code WRITE} ones. A waiting writer keeps new readers
     * out. LEASE and ROW mode only (NAMED is exclusive), and not with {@link #keys()}. See
     * {@link io.github.bizlock.LockAccess}.
     */
    LockAccess access() default LockAccess.WRITE;

    /**
     * What happens to the running call when the lock is lost while it runs: {@code LOG} (report only),
     * {@code INTERRUPT} (interrupt the calling thread) or {@code ROLLBACK_ONLY} (roll back the transaction the call
     * runs in, whose commit then fails with {@code LockLostException}). Empty (the default) means
     * {@code bizlock.on-lost}.
     */
    LockLostPolicy[] onLost() default {};

    /** What to do when the lock is not acquired within the wait time. */
    OnFailure onFailure() default OnFailure.THROW;

    /**
     * The name of a method of the same bean with the same parameter types and a compatible return type, called when
     * {@link #onFailure()} is {@link OnFailure#FALLBACK FALLBACK} and the lock is not acquired.
     */
    String fallback() default "";
}
