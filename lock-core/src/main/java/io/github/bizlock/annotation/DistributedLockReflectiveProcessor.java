package io.github.bizlock.annotation;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The reflection a GraalVM native image needs for {@link DistributedLock} beans, which Spring AOT registers for every
 * bean whose class or methods carry it: the advisor calls a locked method, and its fallback, with
 * {@link Method#invoke}. On a class every public method locks, so all of them are registered.
 */
class DistributedLockReflectiveProcessor extends SimpleReflectiveProcessor {

    @Override
    protected void registerTypeHint(ReflectionHints hints, Class<?> type) {
        hints.registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS);
        DistributedLock lock = lockOn(type);
        for (Method method : type.getMethods()) {
            registerFallback(hints, method, lock);
        }
    }

    @Override
    protected void registerMethodHint(ReflectionHints hints, Method method) {
        super.registerMethodHint(hints, method);
        registerFallback(hints, method, lockOn(method));
    }

    /** The fallback as the advisor finds it: a method of the same class with the same parameter types. */
    private static void registerFallback(ReflectionHints hints, Method method, @Nullable DistributedLock lock) {
        if (lock == null || lock.fallback().isBlank() || method.getDeclaringClass() == Object.class) {
            return;
        }
        Method fallback =
                ReflectionUtils.findMethod(method.getDeclaringClass(), lock.fallback(), method.getParameterTypes());
        if (fallback != null) {
            hints.registerMethod(fallback, ExecutableMode.INVOKE);
        }
    }

    /** The annotation, also as a meta-annotation of an annotation of the application's own. */
    private static @Nullable DistributedLock lockOn(AnnotatedElement element) {
        return AnnotatedElementUtils.findMergedAnnotation(element, DistributedLock.class);
    }
}
