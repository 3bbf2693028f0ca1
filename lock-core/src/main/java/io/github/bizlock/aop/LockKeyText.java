package io.github.bizlock.aop;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The text of a lock key's value: the same for equal values in every process, or a clear error saying why not. */
final class LockKeyText {

    /** How deep into collections, maps and optionals a key value is checked for elements without a text. */
    private static final int MAX_DEPTH = 3;

    /**
     * The usual key types, whose {@code toString()} is their value: known without looking the method up, which a native
     * image can do only on classes registered for reflection.
     */
    private static final Set<Class<?>> VALUE_TEXT = Set.of(
            String.class,
            Integer.class,
            Long.class,
            Short.class,
            Byte.class,
            Boolean.class,
            Character.class,
            Double.class,
            Float.class,
            BigInteger.class,
            BigDecimal.class,
            UUID.class);

    /** Whether a class's {@code toString()} is {@code Object}'s. */
    private static final ClassValue<Boolean> OBJECT_TO_STRING = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            if (VALUE_TEXT.contains(type) || Enum.class.isAssignableFrom(type)) {
                return false;
            }
            try {
                return type.getMethod("toString").getDeclaringClass() == Object.class;
            } catch (NoSuchMethodException ex) {
                throw new IllegalStateException("every class has toString()", ex);
            }
        }
    };

    private LockKeyText() {}

    /**
     * The key text of a value, if it has one: a text that is the same for equal values, in every process. What
     * {@code Object.toString()} gives ({@code Order@1b6d3586}) names an instance, not a value: a new key for every call,
     * so calls would never exclude each other.
     *
     * @param described the expression and its method, for messages
     * @param text the expression as written, for the fixes messages suggest
     */
    static String of(Object value, Supplier<String> described, String text) {
        Object offender = withoutText(value, 0);
        if (offender != null) {
            Class<?> type = offender.getClass();
            String what = type.isArray()
                    ? "an array (" + type.getSimpleName() + "), whose text (like " + type.getName()
                            + "@1b6d3586) names the array, not its elements"
                    : "an instance of " + type.getName() + ", which has no toString() of its own: its text (like "
                            + type.getSimpleName() + "@1b6d3586) names the object, not its value";
            String fix;
            if (offender != value) {
                what = "a " + kind(value) + " holding " + what;
                fix = "implement toString() in " + type.getName()
                        + ", or build the key from what identifies each element (such as '" + text + ".![id]')";
            } else if (type.isArray()) {
                fix = "use its elements, such as 'T(java.util.Arrays).toString(" + text + ")'";
            } else {
                fix = "use a property that identifies it, such as '" + text + ".id', or implement toString() in "
                        + type.getName();
            }
            throw new IllegalArgumentException(described.get() + " evaluated to " + what
                    + ", so it differs on every call and calls would never exclude each other; " + fix);
        }
        try {
            return value.toString();
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException(
                    described.get() + " evaluated to an instance of "
                            + value.getClass().getName() + " whose toString() threw " + ex,
                    ex);
        }
    }

    /**
     * The value, or an element of it (at any depth up to {@link #MAX_DEPTH}), whose text names an instance rather than
     * a value; {@code null} if none.
     */
    private static @Nullable Object withoutText(Object value, int depth) {
        Class<?> type = value.getClass();
        if (type.isArray() || OBJECT_TO_STRING.get(type)) {
            return value;
        }
        if (depth == MAX_DEPTH) {
            return null;
        }
        Collection<?> elements = value instanceof Collection<?> collection
                ? collection
                : value instanceof Map<?, ?> map
                        ? concat(map.keySet(), map.values())
                        : value instanceof Optional<?> optional
                                ? optional.stream().toList()
                                : List.of();
        for (Object element : elements) {
            Object offender = element != null && element != value ? withoutText(element, depth + 1) : null;
            if (offender != null) {
                return offender;
            }
        }
        return null;
    }

    private static List<?> concat(Collection<?> first, Collection<?> second) {
        List<Object> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    private static String kind(Object container) {
        return container instanceof List<?>
                ? "List"
                : container instanceof Set<?>
                        ? "Set"
                        : container instanceof Map<?, ?>
                                ? "Map"
                                : container instanceof Optional<?> ? "Optional" : "Collection";
    }
}
