package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.bizlock.LockMode;
import io.github.bizlock.annotation.DistributedLock;
import java.util.concurrent.CompletableFuture;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;

/**
 * The start-up check of {@code @DistributedLock} beans, driven by hand as the container would drive it after the
 * auto-proxy creator: which beans it lets through, which it refuses and what the refusal names. Proxies are made with a
 * {@link ProxyFactory}, no application context; no locked method is called.
 */
class LockedMethodCheckTest {

    private final BeanPostProcessor check = DistributedLockAdvisor.methodCheck();

    private final DistributedLockAdvisor advisor = new DistributedLockAdvisor(
            () -> {
                throw new IllegalStateException("the check takes no lock");
            },
            null,
            0);

    /** A class-based (CGLIB) proxy with the lock advisor, as the auto-proxy creator makes one. */
    private Object classProxy(Object target) {
        ProxyFactory proxies = new ProxyFactory(target);
        proxies.setProxyTargetClass(true);
        proxies.addAdvisor(advisor);
        return proxies.getProxy();
    }

    /** A JDK proxy over the target's interfaces, with the lock advisor. */
    private Object interfaceProxy(Object target) {
        ProxyFactory proxies = new ProxyFactory(target);
        proxies.addAdvisor(advisor);
        Object proxy = proxies.getProxy();
        assertThat(AopUtils.isJdkDynamicProxy(proxy)).isTrue();
        return proxy;
    }

    private Object checked(Object bean) {
        return check.postProcessAfterInitialization(bean, "bean");
    }

    static class Plain {

        public void run() {}
    }

    static class Reports {

        @DistributedLock(name = "report")
        public void build() {}

        @DistributedLock(name = "report-protected")
        protected void buildProtected() {}

        @DistributedLock(name = "report-package")
        void buildInPackage() {}

        public void unlocked() {}
    }

    /** Final methods it inherits from a class that is not annotated are not its business. */
    static class Base {

        public final String describe() {
            return "base";
        }
    }

    @DistributedLock(name = "job")
    static class LockedClass extends Base {

        public void run() {}

        /** Static methods are never called through a proxy, and a class annotation does not ask to lock them. */
        public static void helper() {}
    }

    static class Unreachable {

        @DistributedLock(name = "job")
        private void hidden() {}

        @DistributedLock(name = "job")
        public static void shared() {}

        @DistributedLock(name = "job")
        public final void fixed() {}

        public void call() {
            hidden();
        }
    }

    @DistributedLock(name = "job")
    static class FinalUnderClassAnnotation {

        public void run() {}

        public final void stop() {}
    }

    interface Job {

        void run();
    }

    static class JobWithAnExtraMethod implements Job {

        @Override
        @DistributedLock(name = "job")
        public void run() {}

        @DistributedLock(name = "job-extra")
        public void extra() {}
    }

    static class InvalidJob implements Job {

        @Override
        @DistributedLock(mode = {LockMode.ROW, LockMode.NAMED})
        public void run() {}
    }

    /** Its annotation covers a method no call through a JDK proxy can reach; that method would be refused if checked. */
    @DistributedLock(name = "job")
    static class LockedJob implements Job {

        @Override
        public void run() {}

        public CompletableFuture<String> later() {
            return CompletableFuture.completedFuture("");
        }
    }

    interface Handler<T> {

        void handle(T value);
    }

    /** A JDK proxy calls the interface's handle(Object), which reaches handle(String) through a bridge method. */
    static class OrderHandler implements Handler<String> {

        @Override
        @DistributedLock(name = "handler", key = "#p0")
        public void handle(String id) {}
    }

    static class InvalidHandler implements Handler<String> {

        @Override
        @DistributedLock(name = "handler", key = "#p0 +")
        public void handle(String id) {}
    }

    static class LockedFactory implements FactoryBean<String> {

        @DistributedLock(name = "factory")
        public void run() {}

        @Override
        public String getObject() {
            return "made";
        }

        @Override
        public Class<?> getObjectType() {
            return String.class;
        }
    }

    static class LockedInfrastructure implements AopInfrastructureBean {

        @DistributedLock(name = "infrastructure")
        public void run() {}
    }

    static class LockedScopedObject implements ScopedObject {

        @DistributedLock(name = "scoped")
        public void run() {}

        @Override
        public Object getTargetObject() {
            return this;
        }

        @Override
        public void removeFromScope() {}
    }

    @Test
    void aBeanWithoutLockedMethodsIsLeftAsItIsProxiedOrNot() {
        Plain plain = new Plain();
        assertThat(checked(plain)).isSameAs(plain);
    }

    @Test
    void aBeanWhoseLockedMethodsTheProxyInterceptsIsLeftAsItIs() {
        Object reports = classProxy(new Reports());
        assertThat(checked(reports)).isSameAs(reports);
        Object locked = classProxy(new LockedClass());
        assertThat(checked(locked)).isSameAs(locked);
    }

    @Test
    void aBeanThatWasNotProxiedIsRefusedNamingItsLockedMethods() {
        assertThatIllegalStateException()
                .isThrownBy(() -> checked(new Reports()))
                .withMessageStartingWith(Reports.class.getName() + " has @DistributedLock methods, but bean 'bean' was"
                        + " not proxied with bizlock's DistributedLockAdvisor")
                .withMessageContaining("Reports.build()")
                .withMessageContaining("Reports.buildProtected()")
                .withMessageContaining("Reports.buildInPackage()")
                .withMessageNotContaining("unlocked");
        assertThatIllegalStateException()
                .isThrownBy(() -> checked(new LockedClass()))
                .withMessageContaining("LockedClass.run()")
                .withMessageNotContaining("describe")
                .withMessageNotContaining("helper");
    }

    @Test
    void aBeanProxiedWithoutTheLockAdvisorIsRefused() {
        ProxyFactory proxies = new ProxyFactory(new Reports());
        proxies.setProxyTargetClass(true);
        proxies.addAdvice((MethodInterceptor) invocation -> invocation.proceed());
        Object proxied = proxies.getProxy();
        assertThatIllegalStateException()
                .isThrownBy(() -> checked(proxied))
                .withMessageContaining("was not proxied with bizlock's DistributedLockAdvisor");
    }

    @Test
    void factoryBeansInfrastructureAndScopedProxiesAreNotChecked() {
        // A scoped proxy's target is a bean of its own, checked when it is created.
        LockedFactory factory = new LockedFactory();
        assertThat(checked(factory)).isSameAs(factory);
        LockedInfrastructure infrastructure = new LockedInfrastructure();
        assertThat(checked(infrastructure)).isSameAs(infrastructure);
        LockedScopedObject scoped = new LockedScopedObject();
        assertThat(checked(scoped)).isSameAs(scoped);
    }

    @Test
    void aBeanProxiedEarlyInAReferenceCycleIsCheckedAsThatProxy() {
        Reports raw = new Reports();
        Object early = classProxy(raw);
        assertThat(((SmartInstantiationAwareBeanPostProcessor) check).getEarlyBeanReference(early, "reports"))
                .isSameAs(early);
        // Its initialization returns the raw bean; the container uses the early proxy in its place.
        assertThat(check.postProcessAfterInitialization(raw, "reports")).isSameAs(raw);
        // The early reference is used once: a bean of that name created later is checked as itself.
        assertThatIllegalStateException().isThrownBy(() -> check.postProcessAfterInitialization(raw, "reports"));
    }

    @Test
    void privateStaticAndFinalMethodsOfAClassProxyAreRefusedTogether() {
        Object proxy = classProxy(new Unreachable());
        assertThatExceptionOfType(InvalidDistributedLockException.class)
                .isThrownBy(() -> checked(proxy))
                .withMessageStartingWith(Unreachable.class.getName() + " has @DistributedLock methods that the proxy of"
                        + " bean 'bean' cannot intercept, so they would run without their lock: ")
                .withMessageContaining("Unreachable.hidden() is private: private methods are called directly")
                .withMessageContaining(
                        "Unreachable.shared() is static: static methods are never called through the" + " proxy")
                .withMessageContaining(
                        "Unreachable.fixed() is final: the bean's class-based (CGLIB) proxy cannot" + " override it")
                .withMessageNotContaining("call()");
    }

    @Test
    void aClassAnnotationAsksToLockItsOwnFinalMethodsButNotInheritedOnes() {
        Object proxy = classProxy(new FinalUnderClassAnnotation());
        assertThatExceptionOfType(InvalidDistributedLockException.class)
                .isThrownBy(() -> checked(proxy))
                .withMessageContaining("FinalUnderClassAnnotation.stop() is final")
                .withMessageNotContaining("run()");
        Object inherits = classProxy(new LockedClass());
        assertThat(checked(inherits)).isSameAs(inherits);
    }

    @Test
    void anInvalidAnnotationFailsTheCheckRatherThanTheFirstCallThroughAJdkProxy() {
        // A class-based proxy looks at every method as it is made; a JDK proxy only on each call.
        Object job = interfaceProxy(new InvalidJob());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> checked(job))
                .withMessageEndingWith("InvalidJob.run() names 2 modes; name at most one");
    }

    @Test
    void anAnnotatedMethodMissingFromTheInterfacesOfAJdkProxyIsRefused() {
        Object proxy = interfaceProxy(new JobWithAnExtraMethod());
        assertThatExceptionOfType(InvalidDistributedLockException.class)
                .isThrownBy(() -> checked(proxy))
                .withMessageContaining("JobWithAnExtraMethod.extra() is not declared by an interface of the bean's JDK"
                        + " proxy (" + Job.class.getName())
                .withMessageNotContaining("run()");
    }

    @Test
    void underAJdkProxyAClassAnnotationLeavesAloneTheMethodsNoCallCanReach() {
        // later() returns a future, which the check would refuse; no call through the proxy can reach it.
        Object proxy = interfaceProxy(new LockedJob());
        assertThat(checked(proxy)).isSameAs(proxy);
    }

    @Test
    void aGenericInterfaceMethodIsReachedThroughItsBridgeMethod() {
        Object proxy = interfaceProxy(new OrderHandler());
        assertThat(checked(proxy)).isSameAs(proxy);
        Object invalid = interfaceProxy(new InvalidHandler());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> checked(invalid))
                .withMessageContaining("InvalidHandler.handle(String): key expression '#p0 +' does not parse");
    }
}
