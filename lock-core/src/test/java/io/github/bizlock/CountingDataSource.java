package io.github.bizlock;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A data source that counts (or shows) the statements prepared on its connections, and passes everything to the real
 * database: tests count how many statements of a kind the locks send, without reading the server's counters,
 * which other tests on a shared server move too.
 */
public final class CountingDataSource {

    private CountingDataSource() {}

    /** Lock-table writes: {@code UPDATE} and {@code INSERT} statements on a {@code biz_lock} table. */
    public static final Predicate<String> LOCK_WRITES = sql -> {
        String text = sql.strip().toUpperCase(Locale.ROOT);
        return (text.startsWith("UPDATE") || text.startsWith("INSERT")) && text.contains("BIZ_LOCK");
    };

    /**
     * {@code target}, counting in {@code count} the statements prepared whose SQL matches {@code counted}. Closing it
     * closes the target if that can be closed (a pool), so it can be a bean of its own.
     */
    public static DataSource counting(DataSource target, Predicate<String> counted, AtomicInteger count) {
        return observing(target, sql -> {
            if (counted.test(sql)) {
                count.incrementAndGet();
            }
        });
    }

    /** {@code target}, telling {@code prepared} the SQL of every statement prepared on its connections. */
    public static DataSource observing(DataSource target, Consumer<String> prepared) {
        return (DataSource) Proxy.newProxyInstance(
                CountingDataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class, AutoCloseable.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == AutoCloseable.class) {
                        if (target instanceof AutoCloseable closeable) {
                            closeable.close();
                        }
                        return null;
                    }
                    Object result = invoke(target, method, args);
                    return result instanceof Connection connection ? observingConnection(connection, prepared) : result;
                });
    }

    private static Connection observingConnection(Connection target, Consumer<String> prepared) {
        return (Connection) Proxy.newProxyInstance(
                CountingDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql) {
                        prepared.accept(sql);
                    }
                    return invoke(target, method, args);
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }
}
