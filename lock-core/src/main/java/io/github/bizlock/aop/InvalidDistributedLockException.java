package io.github.bizlock.aop;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @DistributedLock} that cannot work as declared, found when its bean is created: an invalid attribute (a
 * lease over 365 days, two modes, a missing fallback, a key that does not parse, an asynchronous return type), or a
 * method the bean's proxy cannot intercept (private, static, final). The message names each method and the rule it
 * breaks; Spring Boot applications see it as a start-up failure report rather than a stack trace.
 */
public final class InvalidDistributedLockException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<String> methods;

    InvalidDistributedLockException(List<String> methods, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.methods = List.copyOf(methods);
    }

    /** The methods whose declaration is refused, as {@code com.example.Orders.submit(Order)}. */
    public List<String> methods() {
        return methods;
    }
}
