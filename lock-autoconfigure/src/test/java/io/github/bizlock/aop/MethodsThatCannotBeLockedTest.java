package io.github.bizlock.aop;

import static io.github.bizlock.aop.LockFixtures.heldInDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import kotlin.coroutines.Continuation;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * R16: an annotated method either runs under its lock or the application does not start. Methods that return before
 * their work is done would release the lock while the work still runs; methods the proxy cannot intercept would run
 * without it.
 */
@ExtendWith(TestDatabaseExtension.class)
class MethodsThatCannotBeLockedTest {

    static class Futures {

        @DistributedLock(name = "report")
        public CompletableFuture<String> build() {
            return CompletableFuture.completedFuture("report");
        }
    }

    static class Stages {

        @DistributedLock(name = "report", key = "#p0")
        public CompletionStage<String> build(String day) {
            return CompletableFuture.completedFuture(day);
        }
    }

    static class PlainFutures {

        @DistributedLock(name = "report")
        public Future<String> build() {
            return CompletableFuture.completedFuture("report");
        }
    }

    static class Monos {

        @DistributedLock(name = "report")
        public Mono<String> build() {
            return Mono.just("report");
        }
    }

    @DistributedLock(name = "report")
    static class Fluxes {

        public Flux<String> build() {
            return Flux.just("report");
        }
    }

    static class FlowPublishers {

        @DistributedLock(name = "report")
        public Flow.Publisher<String> build() {
            return subscriber -> {};
        }
    }

    /** What {@code suspend fun build(day: String): String} compiles to. */
    static class Coroutines {

        @DistributedLock(name = "report", key = "#p0")
        public Object build(String day, Continuation<? super String> continuation) {
            return day;
        }
    }

    static class Private {

        @DistributedLock(name = "job")
        private void run() {}

        public void call() {
            run();
        }
    }

    static class Final {

        @DistributedLock(name = "job")
        public final void run() {}
    }

    static class Static {

        @DistributedLock(name = "job")
        public static void run() {}
    }

    /** The class's annotation covers its own public methods, the final one too. */
    @DistributedLock(name = "job")
    static class FinalUnderClassAnnotation {

        public void run() {}

        public final void stop() {}
    }

    interface Job {

        boolean run();
    }

    static class JobWithAnExtraMethod implements Job {

        @Override
        @DistributedLock(name = "job")
        public boolean run() {
            return true;
        }

        @DistributedLock(name = "job-extra")
        public void extra() {}
    }

    interface Handler<T> {

        boolean handle(T value);
    }

    /** A JDK proxy calls the interface's handle(Object), which reaches handle(String) through a bridge method. */
    static class OrderHandler implements Handler<String> {

        private final ObjectProvider<BizLockDao> dao;

        OrderHandler(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        @Override
        @DistributedLock(name = "handler", key = "#p0")
        public boolean handle(String id) {
            return heldInDatabase(dao.getObject(), "handler", id);
        }
    }

    /** Final methods it inherits from a class that is not annotated are not its business. */
    static class Base {

        public final String describe() {
            return "base";
        }
    }

    @DistributedLock(name = "job")
    static class Lockable extends Base {

        private final ObjectProvider<BizLockDao> dao;

        Lockable(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        public boolean run() {
            return heldInDatabase(dao.getObject(), "job", DistributedLock.DEFAULT_KEY);
        }

        @DistributedLock(name = "job-protected")
        protected boolean runProtected() {
            return heldInDatabase(dao.getObject(), "job-protected", DistributedLock.DEFAULT_KEY);
        }

        @DistributedLock(name = "job-package")
        boolean runInPackage() {
            return heldInDatabase(dao.getObject(), "job-package", DistributedLock.DEFAULT_KEY);
        }
    }

    /** Two beans that need each other: the first is proxied early, while the second is created. */
    static class Cyclic {

        private final ObjectProvider<BizLockDao> dao;

        @Autowired
        Other other;

        Cyclic(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        @DistributedLock(name = "cyclic")
        public boolean run() {
            return heldInDatabase(dao.getObject(), "cyclic", DistributedLock.DEFAULT_KEY);
        }
    }

    static class Other {

        @Autowired
        Cyclic cyclic;
    }

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database);
    }

    private void refusedAtStart(Class<?> bean, String method, String returns) {
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .as("the start-up error names the method and the problem")
                    .hasMessageContaining(bean.getSimpleName() + "." + method)
                    .hasMessageContaining(returns)
                    .hasMessageContaining("the lock would be released while its work still runs");
        });
    }

    @Test
    void refusesMethodsReturningAFuture() {
        refusedAtStart(Futures.class, "build()", "returns java.util.concurrent.CompletableFuture");
        refusedAtStart(Stages.class, "build(String)", "returns java.util.concurrent.CompletionStage");
        refusedAtStart(PlainFutures.class, "build()", "returns java.util.concurrent.Future");
    }

    @Test
    void refusesMethodsReturningAPublisher() {
        refusedAtStart(Monos.class, "build()", "returns reactor.core.publisher.Mono");
        refusedAtStart(Fluxes.class, "build()", "returns reactor.core.publisher.Flux");
        refusedAtStart(FlowPublishers.class, "build()", "returns java.util.concurrent.Flow$Publisher");
    }

    @Test
    void refusesKotlinSuspendFunctions() {
        refusedAtStart(Coroutines.class, "build(String, Continuation)", "is a Kotlin suspend function");
    }

    private void refusedAtStart(ApplicationContextRunner runner, Class<?> bean, String... messages) {
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .as("the start-up error names the bean, the method and the problem")
                    .hasMessageContaining("Error creating bean")
                    .hasMessageContaining("would run without their lock");
            for (String message : messages) {
                assertThat(context.getStartupFailure()).hasMessageContaining(message);
            }
        });
    }

    @Test
    void refusesPrivateMethods() {
        refusedAtStart(runner, Private.class, "Private.run() is private");
    }

    @Test
    void refusesFinalMethodsOfAClassBasedProxy() {
        refusedAtStart(runner, Final.class, "Final.run() is final");
        refusedAtStart(runner, FinalUnderClassAnnotation.class, "FinalUnderClassAnnotation.stop() is final");
    }

    @Test
    void refusesStaticMethods() {
        refusedAtStart(runner, Static.class, "Static.run() is static");
    }

    @Test
    void refusesMethodsAJdkProxyDoesNotHave() {
        refusedAtStart(
                runner.withPropertyValues("spring.aop.proxy-target-class=false"),
                JobWithAnExtraMethod.class,
                "JobWithAnExtraMethod.extra() is not declared by an interface of the bean's JDK proxy ("
                        + Job.class.getName() + ")",
                "spring.aop.proxy-target-class=true");
        runner.withPropertyValues("spring.aop.proxy-target-class=true")
                .withBean(JobWithAnExtraMethod.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void startsAndLocksWhenEveryMethodCanBeIntercepted() {
        runner.withBean(Lockable.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Lockable.class).run()).isTrue();
            // A class-based proxy intercepts what it can override.
            assertThat(context.getBean(Lockable.class).runProtected()).isTrue();
            assertThat(context.getBean(Lockable.class).runInPackage()).isTrue();
            assertThat(context.getBean(Lockable.class).describe()).isEqualTo("base");
        });
    }

    @SuppressWarnings("unchecked")
    @Test
    void startsAndLocksAGenericInterfaceMethodThroughAJdkProxy() {
        runner.withPropertyValues("spring.aop.proxy-target-class=false")
                .withBean(OrderHandler.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Handler<String> handler = context.getBean(Handler.class);
                    assertThat(AopUtils.isJdkDynamicProxy(handler)).isTrue();
                    assertThat(handler.handle("o-1")).isTrue();
                });
    }

    @Test
    void startsAndLocksABeanProxiedEarlyInAReferenceCycle() {
        runner.withAllowCircularReferences(true)
                .withBean(Cyclic.class)
                .withBean(Other.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Other.class).cyclic.run()).isTrue();
                });
    }
}
