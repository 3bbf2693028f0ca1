package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.util.ReflectionUtils;

class LockKeyEvaluatorTest {

    record Order(String id, @Nullable String customer) {}

    static class Service {
        public void submit(Order order, int quantity) {}
    }

    record Tenants(String current) {}

    private final Method submit = ReflectionUtils.findMethod(Service.class, "submit", Order.class, int.class);
    private final Service target = new Service();
    private final LockKeyEvaluator evaluator = new LockKeyEvaluator(null);

    private String key(LockKeyEvaluator evaluator, Object[] args, String... expressions) {
        return evaluator.evaluate(submit, expressions, target, args, "*");
    }

    @Test
    void evaluatesParameterNamesAndPositions() {
        Object[] args = {new Order("o-1", "alice"), 3};
        assertThat(key(evaluator, args, "#order.id")).isEqualTo("o-1");
        assertThat(key(new LockKeyEvaluator(null), args, "#p0.customer")).isEqualTo("alice");
        assertThat(key(new LockKeyEvaluator(null), args, "#a1")).isEqualTo("3");
    }

    @Test
    void joinsSeveralExpressionsWithColons() {
        assertThat(key(evaluator, new Object[] {new Order("o-1", "alice"), 3}, "#order.customer", "#order.id", "#p1"))
                .isEqualTo("alice:o-1:3");
    }

    static class Ledger {
        public void book(String from, Object to, @Nullable Object more) {}
    }

    private final Method book =
            ReflectionUtils.findMethod(Ledger.class, "book", String.class, Object.class, Object.class);

    private List<String> keys(Object to, @Nullable Object more, String... expressions) {
        return evaluator.evaluateEach(book, expressions, new Ledger(), new Object[] {"a", to, more});
    }

    @Test
    void keysGivesEachValueAndEachElementAsAKeyOfItsOwn() {
        assertThat(keys("b", null, "#from", "#to")).containsExactly("a", "b");
        assertThat(keys(List.of("c", 4, "a"), null, "#from", "#to")).containsExactly("a", "c", "4", "a");
        assertThat(keys(new long[] {2, 1}, null, "#to")).containsExactly("2", "1");
        assertThat(keys(new String[] {"x"}, Set.of(), "#to", "#more")).containsExactly("x");
    }

    @Test
    void keysThatGiveNoKeyANullElementOrAnElementWithoutTextFail() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> keys(List.of(), null, "#to"))
                .withMessageContaining("Ledger.book(String, Object, Object)")
                .withMessageContaining("gave no key to lock");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> keys(Arrays.asList("b", null), null, "#to"))
                .withMessageContaining("key expression '#to', element 1, is null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> keys(List.of(new Object()), null, "#to"))
                .withMessageContaining("key expression '#to', element 0,")
                .withMessageContaining("no toString() of its own");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> keys("b", null, "#more"))
                .withMessageContaining("key expression '#more' evaluated to null");
    }

    @Test
    void emptyKeyGivesTheDefault() {
        assertThat(key(evaluator, new Object[] {new Order("o-1", null), 1})).isEqualTo("*");
    }

    @Test
    void resolvesBeanReferences() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("tenants", new Tenants("acme"));
        LockKeyEvaluator withBeans = new LockKeyEvaluator(beans);
        assertThat(key(withBeans, new Object[] {new Order("o-1", null), 1}, "@tenants.current", "#order.id"))
                .isEqualTo("acme:o-1");
    }

    @Test
    void nullValueFailsNamingMethodAndExpression() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, "#order.customer"))
                .withMessageContaining("Service.submit(Order, int)")
                .withMessageContaining("'#order.customer'")
                .withMessageContaining("evaluated to null");
    }

    @Test
    void nullArgumentFailsNamingMethodAndExpression() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {null, 1}, "#order.id"))
                .withMessageContaining("Service.submit(Order, int)")
                .withMessageContaining("'#order.id' failed");
    }

    /** No toString of its own: its text is {@code Cart@1b6d3586}, different for every instance. */
    public static final class Cart {
        public Cart() {}
    }

    enum Status {
        OPEN
    }

    @Test
    void valuesWithoutATextOfTheirOwnAreRefusedNamingMethodExpressionAndFix() {
        Object[] args = {new Order("o-1", null), 1};
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "new " + Cart.class.getName() + "()"))
                .withMessageContaining("Service.submit(Order, int)")
                .withMessageContaining("key expression 'new " + Cart.class.getName() + "()'")
                .withMessageContaining(Cart.class.getName() + ", which has no toString() of its own")
                .withMessageContaining("so it differs on every call and calls would never exclude each other")
                .withMessageContaining("use a property that identifies it")
                .withMessageContaining("or implement toString() in " + Cart.class.getName());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "#order.id", "new int[] {1, 2}"))
                .withMessageContaining("key expression 'new int[] {1, 2}'")
                .withMessageContaining("an array (int[])");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "{#order.id, new " + Cart.class.getName() + "()}"))
                .withMessageContaining("a List holding an instance of " + Cart.class.getName());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "{'a': {new " + Cart.class.getName() + "()}}"))
                .withMessageContaining("a Map holding an instance of " + Cart.class.getName());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "new Object()"))
                .withMessageContaining("java.lang.Object, which has no toString() of its own");
    }

    @Test
    void eachKindOfValueWithoutATextGetsItsOwnFix() {
        Object[] args = {new Order("o-1", null), 1};
        String cart = "new " + Cart.class.getName() + "()";
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "new int[] {1, 2}"))
                .withMessageContaining("use its elements, such as 'T(java.util.Arrays).toString(new int[] {1, 2})'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "T(java.util.Set).of(" + cart + ")"))
                .withMessageContaining("a Set holding an instance of " + Cart.class.getName())
                .withMessageContaining("implement toString() in " + Cart.class.getName()
                        + ", or build the key from what identifies each element (such as 'T(java.util.Set).of("
                        + cart + ").![id]')");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "T(java.util.Optional).of(" + cart + ")"))
                .withMessageContaining("a Optional holding an instance of " + Cart.class.getName());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "new java.util.ArrayDeque({" + cart + "})"))
                .withMessageContaining("a Collection holding an instance of " + Cart.class.getName());
    }

    @Test
    void elementsAreCheckedThreeLevelsDeepAndNoDeeper() {
        // The check walks nested containers to a fixed depth, so a deep or cyclic value costs a bounded walk.
        Object[] args = {new Order("o-1", null), 1};
        String cart = "new " + Cart.class.getName() + "()";
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "{{{" + cart + "}}}"))
                .withMessageContaining("a List holding an instance of " + Cart.class.getName());
        assertThat(key(evaluator, args, "{{{{" + cart + "}}}}")).startsWith("[[[[" + Cart.class.getName() + "@");
    }

    @Test
    void aPositionPastTheLastParameterIsNamedAsUnknown() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, "#p2"))
                .withMessageContaining("evaluated to null")
                .withMessageContaining("#p2 is not a parameter of this method; known names: #")
                .withMessageContaining("#p1")
                .withMessageNotContaining("#p2,");
    }

    @Test
    void aNullFromKnownNamesGetsNoHintAboutUnknownOnes() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, "#order.customer"))
                .withMessageEndingWith("(guard it, e.g. '#order?.id ?: \"none\"')");
    }

    @Test
    void valuesWithATextOfTheirOwnAreKeys() {
        Object[] args = {new Order("o-1", null), 1};
        String uuid = "9f3c5a4e-0000-4000-8000-000000000001";
        assertThat(key(evaluator, args, "#order")).isEqualTo("Order[id=o-1, customer=null]");
        assertThat(key(evaluator, args, "T(" + Status.class.getName() + ").OPEN"))
                .isEqualTo("OPEN");
        assertThat(key(evaluator, args, "T(java.util.UUID).fromString('" + uuid + "')"))
                .isEqualTo(uuid);
        assertThat(key(evaluator, args, "{#order.id, #p1}")).isEqualTo("[o-1, 1]");
        assertThat(key(evaluator, args, "#p1 * 2.5")).isEqualTo("2.5");
    }

    public static final class Broken {
        public Broken() {}

        @Override
        public String toString() {
            throw new IllegalStateException("not yet loaded");
        }
    }

    @Test
    void aToStringThatThrowsFailsNamingMethodAndExpression() {
        Object[] args = {new Order("o-1", null), 1};
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, args, "new " + Broken.class.getName() + "()"))
                .withMessageContaining("key expression 'new " + Broken.class.getName() + "()'")
                .withMessageContaining("toString() threw java.lang.IllegalStateException: not yet loaded")
                .withCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void expressionThatThrowsFailsNamingMethodAndExpressionKeepingTheCause() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, "#order.id.substring(5)"))
                .withMessageContaining("Service.submit(Order, int)")
                .withMessageContaining("'#order.id.substring(5)' failed")
                .withCauseInstanceOf(StringIndexOutOfBoundsException.class);
    }

    @Test
    void expressionThatDoesNotParseFailsNamingMethodAndExpression() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, "#order.id +"))
                .withMessageContaining("Service.submit(Order, int)")
                .withMessageContaining("'#order.id +' does not parse");
    }

    @Test
    void blankExpressionIsRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, " "))
                .withMessageContaining("blank key expression");
    }

    @Test
    void unknownNameListsTheParameters() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(evaluator, new Object[] {new Order("o-1", null), 1}, "#ordr.id"))
                .withMessageContaining("#ordr is not a parameter of this method")
                .withMessageContaining("#order");
    }

    @Test
    void unknownNameWithoutCompiledParameterNamesSuggestsPositions() {
        ParameterNameDiscoverer noNames = new ParameterNameDiscoverer() {
            @Override
            public String @Nullable [] getParameterNames(Method method) {
                return null;
            }

            @Override
            public String @Nullable [] getParameterNames(java.lang.reflect.Constructor<?> ctor) {
                return null;
            }
        };
        LockKeyEvaluator withoutNames = new LockKeyEvaluator(null, noNames);
        Object[] args = {new Order("o-1", null), 1};
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key(withoutNames, args, "#order.id"))
                .withMessageContaining("parameter names of this method are not available")
                .withMessageContaining("-parameters")
                .withMessageContaining("#p0");
        assertThat(key(new LockKeyEvaluator(null, noNames), args, "#p0.id")).isEqualTo("o-1");
    }

    @Test
    void parsesEachMethodsExpressionsOnce() {
        String[] expressions = {"#order.id"};
        assertThat(evaluator.parse(submit, expressions)).isSameAs(evaluator.parse(submit, expressions));
    }

    @Test
    void oneMethodLockedByDifferentExpressionsEvaluatesEachOfThem() {
        // One inherited method can be locked by different annotations in different bean classes.
        Object[] args = {new Order("o-1", "alice"), 3};
        assertThat(key(evaluator, args, "#order.id")).isEqualTo("o-1");
        assertThat(key(evaluator, args, "#order.customer")).isEqualTo("alice");
        assertThat(key(evaluator, args, "#order.customer", "#p1")).isEqualTo("alice:3");
        assertThat(key(evaluator, args, "#order.id")).isEqualTo("o-1");
    }
}
