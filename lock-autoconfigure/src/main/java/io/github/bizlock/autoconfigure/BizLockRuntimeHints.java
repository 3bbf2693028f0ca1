package io.github.bizlock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The classes the auto-configuration looks up by name at run time, which a GraalVM native image finds only when told:
 * Flyway, which bizlock's migrations need, and Spring Boot's Flyway auto-configuration, which
 * {@link ApplicationFlyway} keeps off when only bizlock needs Flyway. Spring AOT writes these hints at build time
 * ({@code META-INF/spring/aot.factories}); on the JVM they change nothing.
 */
class BizLockRuntimeHints implements RuntimeHintsRegistrar {

    static final String FLYWAY = "org.flywaydb.core.Flyway";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerTypeIfPresent(classLoader, FLYWAY);
        for (String autoConfiguration : ApplicationFlyway.SPRING_BOOT_FLYWAY) {
            hints.reflection().registerTypeIfPresent(classLoader, autoConfiguration);
        }
    }
}
