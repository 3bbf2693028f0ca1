package io.github.bizlock.aop;

import io.github.bizlock.annotation.DistributedLock;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Fails the creation of a bean whose {@code @DistributedLock} methods would run without their lock: methods a proxy
 * cannot intercept (private, static, final under a class-based proxy, or missing from the interfaces of a JDK proxy),
 * and beans that were not proxied with a {@link DistributedLockAdvisor} at all. It also resolves every annotated method
 * of a proxied bean, so a misconfigured annotation fails at start-up even where the proxy would only look at it on the
 * first call. Runs after the auto-proxy creator, on the bean as it will be used.
 */
final class LockedMethodCheck implements SmartInstantiationAwareBeanPostProcessor, Ordered {

    private final Map<Class<?>, List<Locked>> lockedMethods = new ConcurrentHashMap<>();
    private final Map<String, Object> earlyReferences = new ConcurrentHashMap<>();

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /** A bean in a reference cycle is used as the proxy made here, not as the one its initialization returns. */
    @Override
    public Object getEarlyBeanReference(Object bean, String beanName) {
        earlyReferences.put(beanName, bean);
        return bean;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Object early = earlyReferences.remove(beanName);
        Object used = early != null ? early : bean;
        if (used instanceof AopInfrastructureBean || used instanceof ScopedObject || used instanceof FactoryBean<?>) {
            return bean; // a scoped proxy's target is a bean of its own, checked when it is created
        }
        Class<?> userClass = ClassUtils.getUserClass(AopUtils.getTargetClass(used));
        List<Locked> locked = lockedMethods.computeIfAbsent(userClass, LockedMethodCheck::findLockedMethods);
        if (locked.isEmpty()) {
            return bean;
        }
        DistributedLockAdvisor advisor = used instanceof Advised advised ? advisor(advised) : null;
        if (advisor == null) {
            throw new IllegalStateException(userClass.getName() + " has @DistributedLock methods, but bean '" + beanName
                    + "' was not proxied with bizlock's DistributedLockAdvisor, so they would run"
                    + " without their lock: "
                    + String.join(
                            ", ",
                            locked.stream()
                                    .map(method -> LockKeyEvaluator.methodName(method.method()))
                                    .toList())
                    + ". With Spring Boot, keep bizlock's auto-configuration (it registers the advisor and an"
                    + " auto-proxy creator); in a plain Spring application, register a DistributedLockAdvisor bean and"
                    + " an auto-proxy creator (@EnableAspectJAutoProxy, or a DefaultAdvisorAutoProxyCreator bean). Beans created before the auto-proxy creator (a"
                    + " BeanPostProcessor and what it depends on) are never proxied.");
        }
        List<String> problems = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Locked method : locked) {
            String problem = unreachable(method, (Advised) used, userClass);
            if (problem != null) {
                refused.add(LockKeyEvaluator.methodName(method.method()));
                problems.add(LockKeyEvaluator.methodName(method.method()) + " " + problem);
            } else if (reachable(method, (Advised) used, userClass)) {
                // Fails now, not on the first call, if the annotation is invalid (a JDK proxy looks at it only then).
                advisor.resolve(method.method(), userClass);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidDistributedLockException(
                    refused,
                    userClass.getName() + " has @DistributedLock methods that the proxy of bean '"
                            + beanName + "' cannot intercept, so they would run without their lock: "
                            + String.join("; ", problems),
                    null);
        }
        return bean;
    }

    private static @Nullable DistributedLockAdvisor advisor(Advised advised) {
        for (Advisor advisor : advised.getAdvisors()) {
            if (advisor instanceof DistributedLockAdvisor lockAdvisor) {
                return lockAdvisor;
            }
        }
        return null;
    }

    /**
     * Why a proxy cannot intercept calls of the method, or {@code null} if it can or need not. Static and private
     * methods are never called through a proxy; a class-based (CGLIB) proxy cannot override a final method; a JDK proxy
     * has only the methods of the interfaces it implements (a method only its class's annotation covers, missing from
     * them, cannot be called through the bean at all, so it is left alone).
     */
    private static @Nullable String unreachable(Locked locked, Advised proxy, Class<?> userClass) {
        int modifiers = locked.method().getModifiers();
        if (Modifier.isStatic(modifiers)) {
            return "is static: static methods are never called through the proxy that takes the lock; make it an"
                    + " instance method and call it on the bean";
        }
        if (Modifier.isPrivate(modifiers)) {
            return "is private: private methods are called directly, never through the proxy that takes the lock;"
                    + " make it public and call it on the bean from another bean";
        }
        if (AopUtils.isJdkDynamicProxy(proxy)) {
            if (locked.annotated() && !reachable(locked, proxy, userClass)) {
                return "is not declared by an interface of the bean's JDK proxy ("
                        + String.join(
                                ", ",
                                Arrays.stream(proxy.getProxiedInterfaces())
                                        .map(Class::getName)
                                        .toList())
                        + "), so no call can reach it through the proxy; declare it on one of them, or proxy the class"
                        + " (spring.aop.proxy-target-class=true, or @EnableAspectJAutoProxy(proxyTargetClass = true))";
            }
            return null;
        }
        if (Modifier.isFinal(modifiers)) {
            return "is final: the bean's class-based (CGLIB) proxy cannot override it, so calls run the method"
                    + " without the lock; remove final";
        }
        return null;
    }

    /**
     * Whether calls through the proxy can reach the method (its modifiers aside): for a JDK proxy, whether a method of
     * one of its interfaces is implemented by it (a generic interface's method through its bridge method).
     */
    private static boolean reachable(Locked locked, Advised proxy, Class<?> userClass) {
        if (!AopUtils.isJdkDynamicProxy(proxy)) {
            return true;
        }
        for (Class<?> type : proxy.getProxiedInterfaces()) {
            for (Method declared : type.getMethods()) {
                Method implementation =
                        BridgeMethodResolver.findBridgedMethod(ClassUtils.getMostSpecificMethod(declared, userClass));
                if (implementation.equals(locked.method())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The methods of a bean class that {@code @DistributedLock} asks to lock: annotated methods (directly, as a
     * meta-annotation, or on a method they override or implement), whatever their modifiers; and the public instance
     * methods declared by a class that is annotated itself. Public methods a class inherits from a class that is not
     * annotated are left out here (a class-level annotation still locks them where a proxy can intercept them).
     */
    private static List<Locked> findLockedMethods(Class<?> userClass) {
        if (!AnnotationUtils.isCandidateClass(userClass, DistributedLock.class)) {
            return List.of();
        }
        Method[] methods;
        try {
            methods = ReflectionUtils.getUniqueDeclaredMethods(
                    userClass, method -> method.getDeclaringClass() != Object.class && !method.isSynthetic());
        } catch (IllegalStateException | LinkageError ex) {
            // A signature names a class that is missing: no proxy could look at these methods either.
            return List.of();
        }
        List<Locked> locked = new ArrayList<>();
        for (Method method : methods) {
            if (AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)) {
                locked.add(new Locked(method, true));
            } else if (lockedByItsClass(method)) {
                locked.add(new Locked(method, false));
            }
        }
        return List.copyOf(locked);
    }

    private static boolean lockedByItsClass(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isPublic(modifiers)
                && !Modifier.isStatic(modifiers)
                && AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), DistributedLock.class);
    }

    /**
     * A method {@code @DistributedLock} asks to lock.
     *
     * @param annotated whether the method is annotated, rather than covered by its class's annotation
     */
    private record Locked(Method method, boolean annotated) {}
}
