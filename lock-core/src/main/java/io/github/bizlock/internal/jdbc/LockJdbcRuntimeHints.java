package io.github.bizlock.internal.jdbc;

import java.lang.reflect.Field;
import java.sql.Connection;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * What lock-core reaches by name or by reflection, for a GraalVM native image: Spring AOT writes these hints at build
 * time ({@code META-INF/spring/aot.factories}); on the JVM they change nothing. Package-private: Spring instantiates
 * factories whatever their visibility.
 */
class LockJdbcRuntimeHints implements RuntimeHintsRegistrar {

    /** Every migration script: {@link LockSchema} reads them for its DDL, and Flyway applies them. */
    static final String MIGRATIONS = "db/bizlock/migration/*.sql";

    /** Looked up by name to tell whether the application's pool can be copied. */
    static final String HIKARI_DATA_SOURCE = "com.zaxxer.hikari.HikariDataSource";

    /** {@code HikariConfig.copyStateTo}, which {@link HikariLockPool} copies a pool's settings with, reads its fields. */
    static final String HIKARI_CONFIG = "com.zaxxer.hikari.HikariConfig";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(MIGRATIONS);
        // LockConnectionPool lends its connections as JDK proxies that refuse use after they are given back.
        hints.proxies().registerJdkProxy(Connection.class);
        hints.reflection().registerTypeIfPresent(classLoader, HIKARI_DATA_SOURCE);
        if (ClassUtils.isPresent(HIKARI_CONFIG, classLoader)) {
            for (Field field :
                    ClassUtils.resolveClassName(HIKARI_CONFIG, classLoader).getDeclaredFields()) {
                hints.reflection().registerField(field);
            }
        }
    }
}
