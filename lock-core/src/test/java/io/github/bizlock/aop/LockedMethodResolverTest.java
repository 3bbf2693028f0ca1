package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.aop.elsewhere.Shipments;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import kotlinx.coroutines.Deferred;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * What {@code @DistributedLock} resolves to for one method, and which annotations are refused, checked on plain classes
 * without an application context: the resolver is what every proxied call and the start-up check go through.
 */
class LockedMethodResolverTest {

    private final LockedMethodResolver resolver = new LockedMethodResolver(null, new LockKeyEvaluator(null));

    static class Options {

        @DistributedLock(name = "order", key = "#p0", mode = LockMode.ROW, onLost = LockLostPolicy.INTERRUPT)
        public void oneModeOnePolicy(String id) {}

        @DistributedLock(waitTime = "3s", leaseTime = "1m")
        public void durations() {}

        @DistributedLock(waitTime = " ", leaseTime = "")
        public void blankDurations() {}

        @DistributedLock(waitTime = "0s")
        public void noWait() {}

        @DistributedLock(waitTime = "${order.wait}")
        public void placeholderWait() {}

        @DistributedLock(onFailure = OnFailure.SKIP)
        public Optional<String> optional() {
            return Optional.empty();
        }

        @DistributedLock(onFailure = OnFailure.SKIP)
        public void skipVoid() {}

        @DistributedLock(onFailure = OnFailure.SKIP)
        public Integer skipBoxed() {
            return 1;
        }

        @DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "busy")
        public String withFallback(String id) {
            return id;
        }

        String busy(String id) {
            return "busy " + id;
        }

        public void notAnnotated() {}
    }

    static class Refused {

        @DistributedLock(mode = {LockMode.ROW, LockMode.NAMED})
        public void twoModes() {}

        @DistributedLock(onLost = {LockLostPolicy.LOG, LockLostPolicy.INTERRUPT})
        public void twoPolicies() {}

        @DistributedLock(waitTime = "-1s")
        public void negativeWait() {}

        @DistributedLock(leaseTime = "soon")
        public void notADuration() {}

        @DistributedLock(leaseTime = "0s")
        public void zeroLease() {}

        @DistributedLock(onFailure = OnFailure.SKIP)
        public int skipPrimitive() {
            return 1;
        }

        @DistributedLock(fallback = "busy")
        public void fallbackWithoutFallbackPolicy() {}

        @DistributedLock(onFailure = OnFailure.FALLBACK)
        public void fallbackWithoutName() {}

        @DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "missing")
        public void fallbackMissing(String id, int count) {}

        @DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "wrongType")
        public String fallbackOfAnotherType() {
            return "";
        }

        Integer wrongType() {
            return 1;
        }

        @DistributedLock
        public CompletableFuture<String> future() {
            return CompletableFuture.completedFuture("");
        }

        @DistributedLock
        public Future<String> plainFuture() {
            return CompletableFuture.completedFuture("");
        }

        @DistributedLock
        public CompletionStage<String> stage() {
            return CompletableFuture.completedFuture("");
        }

        @DistributedLock
        public Flow.Publisher<String> publisher() {
            return subscriber -> {};
        }
    }

    /** A type that extends a recognised one; none of these is known to Spring's reactive adapters. */
    interface PendingResult<T> extends Deferred<T> {}

    static class BasePending<T> implements Deferred<T> {}

    static final class PendingTask extends BasePending<String> {}

    static class Deferring {

        @DistributedLock
        public Deferred<String> deferred() {
            return new BasePending<>();
        }

        @DistributedLock
        public PendingResult<String> pending() {
            return new PendingResult<>() {};
        }

        @DistributedLock
        public PendingTask task() {
            return new PendingTask();
        }
    }

    @DistributedLock(name = "reports")
    static class LockedClass {

        public void publicMethod() {}

        void packageMethod() {}
    }

    interface Task {

        @DistributedLock(name = "task")
        void run();
    }

    static class TaskBase {

        public void run() {}
    }

    /** Implements the annotated interface method with one it inherits from a class outside that interface. */
    static class InheritedTask extends TaskBase implements Task {}

    /** An interface a bean class does not implement, whose methods a proxy can still offer (an introduction). */
    @DistributedLock(name = "audit")
    interface Audited {

        void audit();
    }

    private static Method method(Class<?> type, String name, Class<?>... parameters) throws Exception {
        return type.getDeclaredMethod(name, parameters);
    }

    private LockedMethod resolve(Class<?> type, String name, Class<?>... parameters) throws Exception {
        return resolver.resolve(method(type, name, parameters), type).orElseThrow();
    }

    @Test
    void oneModeAndOnePolicyAreTaken() throws Exception {
        LockedMethod locked = resolve(Options.class, "oneModeOnePolicy", String.class);
        assertThat(locked.name()).isEqualTo("order");
        assertThat(locked.keyExpressions()).containsExactly("#p0");
        assertThat(locked.options().mode()).isEqualTo(LockMode.ROW);
        assertThat(locked.options().onLost()).isEqualTo(LockLostPolicy.INTERRUPT);
        assertThat(locked.onFailure()).isEqualTo(OnFailure.THROW);
        assertThat(locked.fallback()).isNull();
        assertThat(locked.returnsOptional()).isFalse();
        assertThat(locked.description())
                .isEqualTo("@DistributedLock on " + Options.class.getName() + ".oneModeOnePolicy(String)");
    }

    @Test
    void unsetAttributesLeaveTheTemplatesDefaultsAndTheNameIsClassDotMethod() throws Exception {
        LockedMethod locked = resolve(Options.class, "blankDurations");
        assertThat(locked.name()).isEqualTo("Options.blankDurations");
        assertThat(locked.options().mode()).isNull();
        assertThat(locked.options().onLost()).isNull();
        assertThat(locked.options().waitTime()).isNull();
        assertThat(locked.options().leaseTime()).isNull();
    }

    @Test
    void durationsAreParsed() throws Exception {
        LockedMethod locked = resolve(Options.class, "durations");
        assertThat(locked.options().waitTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(locked.options().leaseTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(resolve(Options.class, "noWait").options().waitTime()).isZero();
    }

    @Test
    void placeholdersAreResolvedFromTheBeanFactory() throws Exception {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.addEmbeddedValueResolver(text -> text.replace("${order.wait}", "250ms"));
        LockedMethodResolver withPlaceholders =
                new LockedMethodResolver(beanFactory, new LockKeyEvaluator(beanFactory));
        LockedMethod locked = withPlaceholders
                .resolve(method(Options.class, "placeholderWait"), Options.class)
                .orElseThrow();
        assertThat(locked.options().waitTime()).isEqualTo(Duration.ofMillis(250));
        // Without a bean factory the placeholder is not a duration.
        assertThatThrownBy(() -> resolve(Options.class, "placeholderWait"))
                .hasMessageContaining("'${order.wait}' is not a duration");
    }

    @Test
    void aPlaceholderThatResolvesToNothingLeavesTheTemplatesDefault() throws Exception {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.addEmbeddedValueResolver(text -> null);
        LockedMethodResolver withPlaceholders =
                new LockedMethodResolver(beanFactory, new LockKeyEvaluator(beanFactory));
        LockedMethod locked = withPlaceholders
                .resolve(method(Options.class, "placeholderWait"), Options.class)
                .orElseThrow();
        assertThat(locked.options().waitTime()).isNull();
    }

    @Test
    void aFallbackOnlyItsOwnPackageCouldCallIsMadeCallable() throws Exception {
        // The interceptor, in bizlock's package, calls the fallback of a class in the application's package.
        Method ship = Shipments.class.getMethod("ship", String.class);
        LockedMethod locked = resolver.resolve(ship, Shipments.class).orElseThrow();
        assertThat(locked.fallback().invoke(new Shipments(), "4")).isEqualTo("later 4");
    }

    @Test
    void skipAndFallbackMethodsResolveWithWhatTheCallNeeds() throws Exception {
        assertThat(resolve(Options.class, "optional").returnsOptional()).isTrue();
        assertThat(resolve(Options.class, "skipVoid").onFailure()).isEqualTo(OnFailure.SKIP);
        assertThat(resolve(Options.class, "skipBoxed").onFailure()).isEqualTo(OnFailure.SKIP);
        LockedMethod withFallback = resolve(Options.class, "withFallback", String.class);
        assertThat(withFallback.fallback()).isEqualTo(method(Options.class, "busy", String.class));
        // Package-private fallbacks are made accessible, so the interceptor can call them.
        assertThat(withFallback.fallback().invoke(new Options(), "7")).isEqualTo("busy 7");
    }

    @Test
    void methodsWithoutTheAnnotationAndObjectsMethodsAreNotLocked() throws Exception {
        assertThat(resolver.resolve(method(Options.class, "notAnnotated"), Options.class))
                .isEmpty();
        assertThat(resolver.resolve(Object.class.getMethod("toString"), LockedClass.class))
                .isEmpty();
    }

    @Test
    void aClassAnnotationLocksItsPublicMethodsOnly() throws Exception {
        assertThat(resolve(LockedClass.class, "publicMethod").name()).isEqualTo("reports");
        assertThat(resolver.resolve(method(LockedClass.class, "packageMethod"), LockedClass.class))
                .isEmpty();
    }

    @Test
    void anInterfaceMethodsAnnotationAppliesWhereAnInheritedMethodImplementsIt() throws Exception {
        Method run = Task.class.getMethod("run");
        assertThat(resolver.resolve(run, InheritedTask.class))
                .hasValueSatisfying(locked -> assertThat(locked.name()).isEqualTo("task"));
    }

    @Test
    void aMethodOfAnInterfaceTheClassDoesNotImplementTakesThatInterfacesAnnotation() throws Exception {
        Method audit = Audited.class.getMethod("audit");
        assertThat(resolver.resolve(audit, Options.class))
                .hasValueSatisfying(locked -> assertThat(locked.name()).isEqualTo("audit"));
    }

    @Test
    void resolvedOncePerMethodAndClass() throws Exception {
        Method method = method(Options.class, "durations");
        assertThat(resolver.resolve(method, Options.class).orElseThrow())
                .isSameAs(resolver.resolve(method, Options.class).orElseThrow());
    }

    @Test
    void moreThanOneModeOrPolicyIsRefused() {
        assertThatThrownBy(() -> resolve(Refused.class, "twoModes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith(".twoModes() names 2 modes; name at most one");
        assertThatThrownBy(() -> resolve(Refused.class, "twoPolicies"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith(".twoPolicies() names 2 onLost policies; name at most one");
    }

    @Test
    void badDurationsAreRefusedNamingTheMethod() {
        assertThatThrownBy(() -> resolve(Refused.class, "negativeWait"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(".negativeWait(): durations must not be negative, was '-1s'");
        assertThatThrownBy(() -> resolve(Refused.class, "notADuration"))
                .hasMessageContaining(".notADuration(): 'soon' is not a duration; write it as 500ms, 3s, 1m or PT3S");
        assertThatThrownBy(() -> resolve(Refused.class, "zeroLease"))
                .hasMessageContaining(".zeroLease(): leaseTime must be positive");
    }

    @Test
    void skipOnAPrimitiveReturnIsRefused() {
        assertThatThrownBy(() -> resolve(Refused.class, "skipPrimitive"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uses onFailure = SKIP, but the method returns int, which cannot be null");
    }

    @Test
    void fallbacksMustBeAskedForNamedFoundAndOfTheMethodsType() {
        assertThatThrownBy(() -> resolve(Refused.class, "fallbackWithoutFallbackPolicy"))
                .hasMessageContaining(
                        "names fallback 'busy', but onFailure is THROW; set onFailure = OnFailure.FALLBACK");
        assertThatThrownBy(() -> resolve(Refused.class, "fallbackWithoutName"))
                .hasMessageContaining("uses onFailure = FALLBACK but names no fallback");
        assertThatThrownBy(() -> resolve(Refused.class, "fallbackMissing", String.class, int.class))
                .hasMessageContaining("names fallback 'missing', but " + Refused.class.getName()
                        + " has no method missing with parameters (String, int)");
        assertThatThrownBy(() -> resolve(Refused.class, "fallbackOfAnotherType"))
                .hasMessageContaining(
                        "names fallback 'wrongType', which returns java.lang.Integer; it must return what the method"
                                + " returns (java.lang.String)");
    }

    @Test
    void methodsThatReturnBeforeTheirWorkIsDoneAreRefused() {
        assertThatThrownBy(() -> resolve(Refused.class, "future"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "returns java.util.concurrent.CompletableFuture, so it returns before its work is" + " done");
    }

    @Test
    void futuresStagesAndPublishersAreRefusedEachByItsOwnType() {
        assertThatThrownBy(() -> resolve(Refused.class, "plainFuture"))
                .hasMessageContaining("returns java.util.concurrent.Future, so it returns before its work is done");
        assertThatThrownBy(() -> resolve(Refused.class, "stage"))
                .hasMessageContaining("returns java.util.concurrent.CompletionStage, so it returns before");
        assertThatThrownBy(() -> resolve(Refused.class, "publisher"))
                .hasMessageContaining("returns java.util.concurrent.Flow$Publisher, so it returns before");
    }

    @Test
    void returnTypesRecognisedByNameAreRefusedAlsoThroughTheirInterfacesAndSuperclasses() {
        assertThatThrownBy(() -> resolve(Deferring.class, "deferred"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("returns kotlinx.coroutines.Deferred, so it returns before its work is done");
        assertThatThrownBy(() -> resolve(Deferring.class, "pending"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("returns " + PendingResult.class.getName() + ", so it returns before");
        assertThatThrownBy(() -> resolve(Deferring.class, "task"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("returns " + PendingTask.class.getName() + ", so it returns before");
    }
}
