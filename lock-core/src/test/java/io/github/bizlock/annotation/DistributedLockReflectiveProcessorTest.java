package io.github.bizlock.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.ExecutableHint;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

/**
 * The reflection Spring AOT registers for beans with {@code @DistributedLock}, as for any bean: through
 * {@link ReflectiveRuntimeHintsRegistrar}.
 */
class DistributedLockReflectiveProcessorTest {

    @Test
    void locksAnnotatedMethodsAndTheirFallbacksMayBeInvoked() {
        RuntimeHints hints = hintsFor(Orders.class);

        assertThat(invocable(hints, Orders.class)).containsExactlyInAnyOrder("submit", "busy", "cancel");
    }

    @Test
    void everyPublicMethodOfAnAnnotatedClassMayBeInvoked() {
        RuntimeHints hints = hintsFor(Stock.class);

        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(Stock.class)
                        .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
                .accepts(hints);
    }

    @Test
    void beansWithoutTheAnnotationGetNoHints() {
        assertThat(hintsFor(Unlocked.class).reflection().typeHints()).isEmpty();
    }

    private static RuntimeHints hintsFor(Class<?> bean) {
        RuntimeHints hints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, bean);
        return hints;
    }

    private static List<String> invocable(RuntimeHints hints, Class<?> type) {
        TypeHint hint = hints.reflection().getTypeHint(type);
        assertThat(hint).as("hint for " + type.getName()).isNotNull();
        return hint.methods()
                .filter(method -> method.getMode() == ExecutableMode.INVOKE)
                .map(ExecutableHint::getName)
                .toList();
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @DistributedLock(name = "cancel", key = "#p0")
    @interface CancelLock {}

    static class Orders {

        @DistributedLock(name = "order", key = "#p0", onFailure = OnFailure.FALLBACK, fallback = "busy")
        public String submit(String id) {
            return id;
        }

        String busy(String id) {
            return "busy " + id;
        }

        @CancelLock
        public void cancel(String id) {}

        public void notLocked() {}
    }

    @DistributedLock(name = "stock")
    static class Stock {

        public void reserve(String sku) {}
    }

    static class Unlocked {

        public void run() {}
    }
}
