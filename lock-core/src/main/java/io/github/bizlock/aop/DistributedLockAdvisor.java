package io.github.bizlock.aop;

import io.github.bizlock.LockTemplate;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Applies {@link DistributedLockInterceptor} to the methods that {@code @DistributedLock} covers. Its order must put it
 * outside the transaction advisor (a lower number), so the lock is taken before a transaction begins and released
 * after it ends.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    /**
     * The order to give it: outside the transaction advisor, whose default is {@link Ordered#LOWEST_PRECEDENCE}, so the
     * lock is held from before the transaction begins until after it ends.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    private static final long serialVersionUID = 1L;

    private final transient LockedMethodResolver methods;
    private final transient DistributedLockInterceptor interceptor;
    private final transient Pointcut pointcut;

    /**
     * @param lockTemplate the template, looked up on first use so advisors can be created before the lock beans
     * @param beanFactory resolves {@code @bean} references in keys and placeholders in durations
     * @param order the advisor's order, usually {@link #DEFAULT_ORDER}
     */
    public DistributedLockAdvisor(Supplier<LockTemplate> lockTemplate, @Nullable BeanFactory beanFactory, int order) {
        LockKeyEvaluator keys = new LockKeyEvaluator(beanFactory);
        this.methods = new LockedMethodResolver(beanFactory, keys);
        this.interceptor = new DistributedLockInterceptor(lockTemplate, methods, keys);
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return methods.resolve(method, targetClass).isPresent();
            }
        };
        setOrder(order);
    }

    /**
     * A bean post-processor that fails the creation of a bean whose {@code @DistributedLock} methods would run without
     * their lock: private, static or final methods, methods missing from the interfaces of a JDK proxy, and beans that
     * were not proxied with this advisor at all (no auto-proxy creator). It also checks every annotated method of a
     * bean when the bean is created rather than on its first call. Spring Boot's auto-configuration registers it; in a
     * plain Spring application, declare it next to the advisor:
     *
     * <pre>{@code
     * @Bean
     * static BeanPostProcessor distributedLockMethodCheck() {
     *     return DistributedLockAdvisor.methodCheck();
     * }
     * }</pre>
     */
    public static BeanPostProcessor methodCheck() {
        return new LockedMethodCheck();
    }

    /**
     * Whether to refuse, with an {@link IllegalStateException} and before taking the lock, a call made inside a
     * transaction that was open before it at REPEATABLE READ or the default isolation, instead of logging a warning
     * once per method (the default). If such a transaction read before the lock, InnoDB's snapshot hides the previous
     * holder's commit from plain reads under the lock. Transactions at READ COMMITTED or SERIALIZABLE are not affected.
     */
    public void setRefuseInSnapshotTransaction(boolean refuse) {
        interceptor.refuseInSnapshotTransaction(refuse);
    }

    /**
     * The lock for calls of {@code method} on a bean of {@code targetClass}, if any.
     *
     * @throws IllegalArgumentException if the annotation is invalid for this method
     */
    Optional<LockedMethod> resolve(Method method, Class<?> targetClass) {
        return methods.resolve(method, targetClass);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
