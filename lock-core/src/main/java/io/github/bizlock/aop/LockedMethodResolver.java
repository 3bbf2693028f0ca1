package io.github.bizlock.aop;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @DistributedLock} that applies to a method of a bean class (on the method, the method it implements,
 * the class or an interface, directly or as a meta-annotation) and checks it, once per method and class.
 */
final class LockedMethodResolver {

    private static final Optional<LockedMethod> NOT_LOCKED = Optional.empty();

    private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";

    /** Return types whose work goes on after the method returns, besides futures and the JDK's Flow.Publisher. */
    private static final Set<String> REACTIVE_TYPES =
            Set.of("org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Deferred");

    private final @Nullable BeanFactory beanFactory;
    private final LockKeyEvaluator keys;
    private final Map<MethodClassKey, Optional<LockedMethod>> cache = new ConcurrentHashMap<>();

    LockedMethodResolver(@Nullable BeanFactory beanFactory, LockKeyEvaluator keys) {
        this.beanFactory = beanFactory;
        this.keys = keys;
    }

    /**
     * The lock for calls of {@code method} on a bean of {@code targetClass}, if any.
     *
     * @throws InvalidDistributedLockException if the annotation is invalid for this method
     */
    Optional<LockedMethod> resolve(Method method, @Nullable Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class) {
            return NOT_LOCKED;
        }
        return cache.computeIfAbsent(new MethodClassKey(method, targetClass), key -> find(method, targetClass));
    }

    private Optional<LockedMethod> find(Method method, @Nullable Class<?> targetClass) {
        Class<?> userClass = targetClass != null ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
        Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, userClass));
        DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (lock == null) {
            lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (lock == null && Modifier.isPublic(specific.getModifiers())) {
            lock = AnnotatedElementUtils.findMergedAnnotation(userClass, DistributedLock.class);
            if (lock == null) {
                lock = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), DistributedLock.class);
            }
        }
        if (lock == null) {
            return NOT_LOCKED;
        }
        try {
            return Optional.of(check(lock, specific, userClass));
        } catch (IllegalArgumentException ex) {
            // One type for every refused declaration, whichever check found it, so that a start-up failure can be
            // reported as what it is rather than as the proxy's failure it surfaces in.
            throw new InvalidDistributedLockException(
                    List.of(LockKeyEvaluator.methodName(specific)), String.valueOf(ex.getMessage()), ex);
        }
    }

    private LockedMethod check(DistributedLock lock, Method method, Class<?> userClass) {
        String description = "@DistributedLock on " + LockKeyEvaluator.methodName(method);
        String name = lock.name().isBlank() ? userClass.getSimpleName() + "." + method.getName() : lock.name();
        LockOptions options = LockOptions.defaults();
        try {
            Duration wait = duration(lock.waitTime());
            if (wait != null) {
                options = options.waitTime(wait);
            }
            Duration lease = duration(lock.leaseTime());
            if (lease != null) {
                options = options.leaseTime(lease);
            }
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(description + ": " + ex.getMessage(), ex);
        }
        LockMode[] modes = lock.mode();
        if (modes.length > 1) {
            throw new IllegalArgumentException(description + " names " + modes.length + " modes; name at most one");
        }
        if (modes.length == 1) {
            options = options.mode(modes[0]);
        }
        if (lock.access() == LockAccess.READ) {
            if (modes.length == 1 && modes[0] == LockMode.NAMED) {
                throw new IllegalArgumentException(description + " asks for a NAMED read lock, but NAMED locks"
                        + " (GET_LOCK) are exclusive only: use mode = LEASE or ROW for a read lock, or drop"
                        + " access = READ");
            }
            if (lock.keys().length > 0) {
                throw new IllegalArgumentException(description + " asks for read locks of several keys (keys with"
                        + " access = READ); keys takes write locks only: drop access = READ, or lock one key");
            }
            options = options.access(LockAccess.READ);
        }
        LockLostPolicy[] onLost = lock.onLost();
        if (onLost.length > 1) {
            throw new IllegalArgumentException(
                    description + " names " + onLost.length + " onLost policies; name at most one");
        }
        if (onLost.length == 1) {
            options = options.onLost(onLost[0]);
        }
        if (lock.key().length > 0 && lock.keys().length > 0) {
            throw new IllegalArgumentException(description + " sets both key and keys. key joins the values of its"
                    + " expressions into ONE lock key (\"a:b\"); keys locks each value as a key of its own, all of them"
                    + " together. Keep the one you mean: key = {...} for one composite key, keys = {...} for several");
        }
        refuseBadPermits(lock, description);
        keys.parse(method, lock.key());
        keys.parse(method, lock.keys());
        refuseEarlyReturn(method, description);
        Class<?> returnType = method.getReturnType();
        Method fallback = null;
        if (lock.onFailure() == OnFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
            throw new IllegalArgumentException(description + " uses onFailure = SKIP, but the method returns "
                    + returnType + ", which cannot be null; return a wrapper type or an Optional, or use THROW or"
                    + " FALLBACK");
        }
        if (lock.onFailure() == OnFailure.FALLBACK) {
            fallback = fallback(lock.fallback(), method, userClass, description);
        } else if (!lock.fallback().isBlank()) {
            throw new IllegalArgumentException(description + " names fallback '" + lock.fallback()
                    + "', but onFailure is " + lock.onFailure() + "; set onFailure = OnFailure.FALLBACK");
        }
        return new LockedMethod(
                method,
                description,
                name,
                lock.key(),
                lock.keys(),
                options,
                lock.onFailure(),
                fallback,
                returnType == Optional.class,
                lock.permits());
    }

    /** Refuses a number of permits that no call could use: out of range, or with several keys. */
    private static void refuseBadPermits(DistributedLock lock, String description) {
        if (lock.permits() < 0 || lock.permits() > PermitHandle.MAX_PERMITS) {
            throw new IllegalArgumentException(description + " sets permits = " + lock.permits() + "; set 1 to "
                    + PermitHandle.MAX_PERMITS + " for a semaphore of that many permits, or leave it out (0) for a"
                    + " plain lock");
        }
        if (lock.permits() > 0 && lock.keys().length > 0) {
            throw new IllegalArgumentException(description + " sets both permits and keys: a permit is one of a"
                    + " semaphore's, of one key; use key = {...} with permits, or keys = {...} without");
        }
        if (lock.permits() > 0 && lock.access() == LockAccess.READ) {
            throw new IllegalArgumentException(description + " sets permits with access = READ: a permit is one"
                    + " holder's slot and has no read lock; drop access = READ, or permits for a read lock");
        }
    }

    /**
     * Refuses a method that returns before its work is done: the lock would be released when it returns, while the
     * work still runs. Reactive and Kotlin types are recognised by name, so none of their libraries is needed.
     */
    private static void refuseEarlyReturn(Method method, String description) {
        Class<?> returnType = method.getReturnType();
        Class<?>[] parameters = method.getParameterTypes();
        String what;
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals(KOTLIN_CONTINUATION)) {
            what = "is a Kotlin suspend function (its last parameter is " + KOTLIN_CONTINUATION
                    + "), which can return while its work is suspended";
        } else if (Future.class.isAssignableFrom(returnType)
                || CompletionStage.class.isAssignableFrom(returnType)
                || Flow.Publisher.class.isAssignableFrom(returnType)
                || isNamed(returnType, REACTIVE_TYPES)
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType) != null) {
            what = "returns " + returnType.getName() + ", so it returns before its work is done";
        } else {
            return;
        }
        throw new IllegalArgumentException(description + " " + what + ", and the lock would be released while its"
                + " work still runs; bizlock cannot hold a lock until asynchronous work completes. Take the lock inside"
                + " the work instead (LockTemplate.execute in the task, or a @DistributedLock method with a plain"
                + " return type that the task calls), or return the result itself");
    }

    /** Whether the type is, extends or implements one of the named types. */
    private static boolean isNamed(@Nullable Class<?> type, Set<String> names) {
        if (type == null) {
            return false;
        }
        if (names.contains(type.getName())) {
            return true;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            if (isNamed(implemented, names)) {
                return true;
            }
        }
        return isNamed(type.getSuperclass(), names);
    }

    private static Method fallback(String name, Method method, Class<?> userClass, String description) {
        if (name.isBlank()) {
            throw new IllegalArgumentException(description + " uses onFailure = FALLBACK but names no fallback;"
                    + " set fallback to the name of a method of the same class with the same parameters");
        }
        Method fallback = ReflectionUtils.findMethod(userClass, name, method.getParameterTypes());
        if (fallback == null) {
            throw new IllegalArgumentException(description + " names fallback '" + name + "', but "
                    + userClass.getName() + " has no method " + name + " with parameters ("
                    + String.join(
                            ", ",
                            java.util.Arrays.stream(method.getParameterTypes())
                                    .map(Class::getSimpleName)
                                    .toList())
                    + ")");
        }
        if (!ClassUtils.isAssignable(method.getReturnType(), fallback.getReturnType())) {
            throw new IllegalArgumentException(description + " names fallback '" + name + "', which returns "
                    + fallback.getReturnType().getName() + "; it must return what the method returns ("
                    + method.getReturnType().getName() + ")");
        }
        ReflectionUtils.makeAccessible(fallback);
        return fallback;
    }

    private @Nullable Duration duration(String text) {
        String resolved = text;
        if (beanFactory instanceof ConfigurableBeanFactory configurable && text.contains("${")) {
            resolved = configurable.resolveEmbeddedValue(text);
        }
        if (resolved == null || resolved.isBlank()) {
            return null;
        }
        Duration duration;
        try {
            duration = DurationFormatterUtils.detectAndParse(resolved.trim());
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(
                    "'" + resolved + "' is not a duration; write it as 500ms, 3s, 1m or PT3S", ex);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative, was '" + resolved + "'");
        }
        return duration;
    }
}
