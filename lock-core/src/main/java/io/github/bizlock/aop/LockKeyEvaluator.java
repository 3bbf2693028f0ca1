package io.github.bizlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ObjectUtils;

/**
 * Evaluates {@code @DistributedLock} keys: SpEL over the method's arguments ({@code #name}, {@code #p0}, {@code #a0})
 * and beans ({@code @bean}). One parser for all methods; the expressions of each method are parsed once and cached
 * by method and expression text, since one method (inherited by several bean classes) can be locked by different
 * annotations.
 */
final class LockKeyEvaluator {

    /** Joins the values of several key expressions. */
    static final String SEPARATOR = ":";

    private static final ExpressionParser PARSER = new SpelExpressionParser();

    private final ParameterNameDiscoverer parameterNames;
    private final @Nullable BeanFactoryResolver beanResolver;
    private final Map<CacheKey, ParsedKey> cache = new ConcurrentHashMap<>();

    /**
     * @param beanFactory resolves {@code @bean} references, or {@code null} to allow none
     */
    LockKeyEvaluator(@Nullable BeanFactory beanFactory) {
        this(beanFactory, new DefaultParameterNameDiscoverer());
    }

    LockKeyEvaluator(@Nullable BeanFactory beanFactory, ParameterNameDiscoverer parameterNames) {
        this.parameterNames = parameterNames;
        this.beanResolver = beanFactory != null ? new BeanFactoryResolver(beanFactory) : null;
    }

    /**
     * The lock key for one call.
     *
     * @param method the annotated method (the one whose parameters the expressions name)
     * @param expressions the {@code key} attribute; empty gives {@code defaultKey}
     * @param target the bean the method is called on, the expressions' root object
     * @param args the call's arguments
     * @throws IllegalArgumentException if an expression does not parse, fails or throws, or evaluates to {@code null}
     *     or to a value without a text of its own (an array, an object without {@code toString()}), naming the method
     *     and the expression
     */
    String evaluate(Method method, String[] expressions, Object target, @Nullable Object[] args, String defaultKey) {
        if (expressions.length == 0) {
            return defaultKey;
        }
        ParsedKey parsed = parse(method, expressions);
        MethodBasedEvaluationContext context = context(method, target, args);
        List<String> values = new ArrayList<>(parsed.expressions.size());
        for (Expression expression : parsed.expressions) {
            values.add(evaluate(method, parsed, expression, context));
        }
        return String.join(SEPARATOR, values);
    }

    /**
     * The keys for one call of a method that locks several ({@code keys}): each expression's value is a key, or a
     * collection or array of keys. Duplicates are kept; the lock collapses them.
     *
     * @throws IllegalArgumentException if an expression does not parse or fails, a value or element is {@code null}
     *     or has no text of its own, or the expressions give no key at all, naming the method and the expression
     */
    List<String> evaluateEach(Method method, String[] expressions, Object target, @Nullable Object[] args) {
        ParsedKey parsed = parse(method, expressions);
        MethodBasedEvaluationContext context = context(method, target, args);
        List<String> keys = new ArrayList<>();
        for (Expression expression : parsed.expressions) {
            Object value = value(method, parsed, expression, context);
            if (!(value instanceof Collection<?>) && !value.getClass().isArray()) {
                keys.add(LockKeyText.of(value, () -> describe(method, expression), expression.getExpressionString()));
                continue;
            }
            List<?> elements = value instanceof Collection<?> collection
                    ? new ArrayList<>(collection)
                    : Arrays.asList(ObjectUtils.toObjectArray(value));
            for (int i = 0; i < elements.size(); i++) {
                Object element = elements.get(i);
                int index = i;
                Supplier<String> described = () -> describe(method, expression) + ", element " + index + ",";
                if (element == null) {
                    throw new IllegalArgumentException(described.get() + " is null; every element must be a key"
                            + " (filter nulls out, e.g. '" + expression.getExpressionString() + ".?[#this != null]')");
                }
                keys.add(LockKeyText.of(element, described, expression.getExpressionString() + "[" + i + "]"));
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("@DistributedLock on " + methodName(method) + ": keys "
                    + Arrays.toString(expressions) + " gave no key to lock; a call must lock at least one key (check"
                    + " the arguments, or do not call the method with nothing to lock)");
        }
        return keys;
    }

    private MethodBasedEvaluationContext context(Method method, Object target, @Nullable Object[] args) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, method, args, parameterNames);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        return context;
    }

    private String evaluate(
            Method method, ParsedKey parsed, Expression expression, MethodBasedEvaluationContext context) {
        Object value = value(method, parsed, expression, context);
        return LockKeyText.of(value, () -> describe(method, expression), expression.getExpressionString());
    }

    private Object value(Method method, ParsedKey parsed, Expression expression, MethodBasedEvaluationContext context) {
        Object value;
        try {
            value = expression.getValue(context);
        } catch (EvaluationException ex) {
            throw new IllegalArgumentException(
                    describe(method, expression) + " failed: " + ex.getMessage() + unknownNames(parsed, expression),
                    ex);
        } catch (RuntimeException ex) {
            // A method the expression calls threw; SpEL passes such exceptions on unwrapped.
            throw new IllegalArgumentException(
                    describe(method, expression) + " failed: " + ex
                            + "; make the expression work for every argument the method can get (for example"
                            + " '#id.length() > 5 ? #id.substring(5) : #id')",
                    ex);
        }
        if (value == null) {
            throw new IllegalArgumentException(describe(method, expression)
                    + " evaluated to null; a lock key needs a value (guard it, e.g. '#order?.id ?: \"none\"')"
                    + unknownNames(parsed, expression));
        }
        return value;
    }

    /**
     * Parses a method's key expressions, once per method and expressions.
     *
     * @throws IllegalArgumentException if one is blank or does not parse
     */
    ParsedKey parse(Method method, String[] expressions) {
        return cache.computeIfAbsent(
                new CacheKey(method, Arrays.asList(expressions.clone())), key -> parseNow(method, expressions));
    }

    private ParsedKey parseNow(Method method, String[] expressions) {
        List<Expression> parsed = new ArrayList<>(expressions.length);
        for (String text : expressions) {
            if (text == null || text.isBlank()) {
                throw new IllegalArgumentException("@DistributedLock on " + methodName(method)
                        + " has a blank key expression; remove it or write one such as '#p0'");
            }
            try {
                parsed.add(PARSER.parseExpression(text));
            } catch (ParseException ex) {
                throw new IllegalArgumentException(
                        "@DistributedLock on " + methodName(method) + ": key expression '" + text + "' does not parse: "
                                + ex.getMessage(),
                        ex);
            }
        }
        @Nullable String[] names = parameterNames.getParameterNames(method);
        Set<String> known = new LinkedHashSet<>();
        if (names != null) {
            known.addAll(Arrays.asList(names));
        }
        for (int i = 0; i < method.getParameterCount(); i++) {
            known.add("p" + i);
            known.add("a" + i);
        }
        return new ParsedKey(List.copyOf(parsed), Set.copyOf(known), names != null);
    }

    /** A hint when the expression names variables that are not parameters, empty otherwise. */
    private static String unknownNames(ParsedKey parsed, Expression expression) {
        Set<String> unknown = new LinkedHashSet<>();
        if (expression instanceof SpelExpression spel) {
            collectVariables(spel.getAST(), unknown);
        }
        unknown.removeAll(parsed.known);
        unknown.remove("root");
        unknown.remove("this");
        if (unknown.isEmpty()) {
            return "";
        }
        String names = "#" + String.join(", #", unknown);
        if (!parsed.namesAvailable) {
            return ". " + names + " is not known: parameter names of this method are not available (compile with"
                    + " -parameters, as Spring Boot's Maven and Gradle plugins do), so refer to parameters by"
                    + " position: #p0 or #a0 for the first";
        }
        return ". " + names + " is not a parameter of this method; known names: #" + String.join(", #", parsed.known);
    }

    private static void collectVariables(SpelNode node, Set<String> names) {
        if (node instanceof VariableReference) {
            names.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), names);
        }
    }

    static String describe(Method method, Expression expression) {
        return "@DistributedLock on " + methodName(method) + ": key expression '" + expression.getExpressionString()
                + "'";
    }

    static String methodName(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName() + "("
                + String.join(
                        ", ",
                        Arrays.stream(method.getParameterTypes())
                                .map(Class::getSimpleName)
                                .toList())
                + ")";
    }

    record ParsedKey(List<Expression> expressions, Set<String> known, boolean namesAvailable) {}

    private record CacheKey(Method method, List<String> expressions) {}
}
