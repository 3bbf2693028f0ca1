package io.github.bizlock.test;

import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class a fresh database: declare a {@link TestDatabase} or {@link DataSource} parameter on a test,
 * lifecycle method or constructor. The database is created before the class's first test and dropped after its last.
 */
public final class TestDatabaseExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TestDatabaseExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        database(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        TestDatabase database = context.getStore(NAMESPACE).remove(context.getRequiredTestClass(), TestDatabase.class);
        if (database != null) {
            database.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TestDatabase.class || type == DataSource.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestDatabase database = database(context);
        return parameter.getParameter().getType() == TestDatabase.class ? database : database.dataSource();
    }

    /**
     * The test class's database, created on first use: for another extension that sets the database up (before
     * the class's first test when it asks in its {@code beforeAll}).
     */
    public static TestDatabase database(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext
                .getStore(NAMESPACE)
                .computeIfAbsent(context.getRequiredTestClass(), key -> TestDatabases.create(), TestDatabase.class);
    }
}
