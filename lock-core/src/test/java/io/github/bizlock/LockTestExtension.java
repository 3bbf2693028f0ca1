package io.github.bizlock;

import io.github.bizlock.test.TestDatabaseExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * {@link LockTest}'s extension: makes the lock tables before the class's first test and hands out one {@link Locks}
 * per context (the class, or a test with its {@code @BeforeEach} and {@code @AfterEach}), closed when that context
 * ends.
 */
final class LockTestExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LockTest.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        LockFixture.createSchema(TestDatabaseExtension.database(context).dataSource());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Locks.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // A test method's context for its @BeforeEach, body and @AfterEach; the class's for the constructor of a
        // per-class instance and @BeforeAll. Keyed by the context, since a store also answers with its parents' values.
        return context.getStore(NAMESPACE)
                .computeIfAbsent(
                        context.getUniqueId(),
                        id -> new Locks(TestDatabaseExtension.database(context).dataSource()),
                        Locks.class);
    }

    private static void close(ExtensionContext context) {
        Locks locks = context.getStore(NAMESPACE).remove(context.getUniqueId(), Locks.class);
        if (locks != null) {
            locks.close();
        }
    }
}
