package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.annotation.DistributedLock;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * R16: an annotated method either runs under its lock or the application does not start. Methods that return before
 * their work is done would release the lock while the work still runs.
 */
@ExtendWith(TestDatabaseExtension.class)
class MethodsThatCannotBeLockedTest {

    static class Futures {

        @DistributedLock(name = "report")
        public CompletableFuture<String> build() {
            return CompletableFuture.supplyAsync(() -> "report");
        }
    }

    static class Stages {

        @DistributedLock(name = "report", key = "#p0")
        public CompletionStage<String> build(String day) {
            return CompletableFuture.supplyAsync(() -> day);
        }
    }

    static class PlainFutures {

        @DistributedLock(name = "report")
        public Future<String> build() {
            return CompletableFuture.supplyAsync(() -> "report");
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
}
