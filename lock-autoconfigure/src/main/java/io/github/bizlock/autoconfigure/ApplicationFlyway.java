package io.github.bizlock.autoconfigure;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.NativeDetector;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Keeps Spring Boot's own Flyway migration of the application's schema off when it is there only because of bizlock.
 * Spring Boot runs Flyway on the application's schema whenever Flyway and its Flyway auto-configuration are present:
 * on Spring Boot 3.5 that is Flyway alone, which bizlock's own migrations need. On a schema with tables and no Flyway
 * history, that migration fails the start ("Found non-empty schema(s) ... but no schema history table"), so adding
 * bizlock would break an application that started before. bizlock migrates its tables with a Flyway and a history of
 * its own ({@link BizLockSchemaInitializer}), so Spring Boot's is not needed for them.
 *
 * <p>It stays off only when the application shows no sign of using it: no {@code spring.flyway.*} property set
 * anywhere in the environment, and nothing at Spring Boot's default location ({@code classpath:db/migration}). Then
 * {@code spring.flyway.enabled=false} is added at the lowest precedence, and the start logs how to undo it.
 */
public final class ApplicationFlyway {

    /** The name of the property source that holds {@code spring.flyway.enabled=false}. */
    public static final String PROPERTY_SOURCE = "bizlockApplicationFlyway";

    private static final ConfigurationPropertyName SPRING_FLYWAY = ConfigurationPropertyName.of("spring.flyway");

    /** Where Spring Boot's Flyway looks for the application's migrations when spring.flyway.locations is not set. */
    private static final String DEFAULT_LOCATION = "classpath:db/migration";

    /** Spring Boot's Flyway auto-configuration, as Spring Boot 4 and Spring Boot 3.5 name it. */
    static final String[] SPRING_BOOT_FLYWAY = {
        "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
        "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration"
    };

    private ApplicationFlyway() {}

    /**
     * Turns Spring Boot's Flyway off in {@code environment} if the application uses it for nothing.
     *
     * @param environment the application's environment, with its configuration loaded
     * @param classLoader the application's class loader, where Spring Boot's Flyway would look for migrations
     * @param log where to say that it was turned off, and how to undo it
     */
    public static void turnOffWhereUnused(ConfigurableEnvironment environment, ClassLoader classLoader, Log log) {
        if (environment.getPropertySources().contains(PROPERTY_SOURCE)
                || !ClassUtils.isPresent(BizLockRuntimeHints.FLYWAY, classLoader)
                || Arrays.stream(SPRING_BOOT_FLYWAY).noneMatch(name -> ClassUtils.isPresent(name, classLoader))
                || setsSpringFlywayProperties(environment)
                || hasMigrations(classLoader)) {
            return;
        }
        environment
                .getPropertySources()
                .addLast(new MapPropertySource(PROPERTY_SOURCE, Map.of("spring.flyway.enabled", "false")));
        log.info("Spring Boot's Flyway migration of the application's schema is off: the application has no migrations"
                + " at " + DEFAULT_LOCATION + " and sets no spring.flyway.* property, and Flyway is on the class path"
                + " for bizlock's own migrations (history table of their own). Set spring.flyway.enabled=true to have"
                + " Spring Boot migrate the application's schema as without bizlock.");
    }

    private static boolean setsSpringFlywayProperties(ConfigurableEnvironment environment) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.containsDescendantOf(SPRING_FLYWAY) == ConfigurationPropertyState.PRESENT) {
                return true;
            }
        }
        return false;
    }

    /** Whether Spring Boot's Flyway would find a migration (SQL script or Java class) at its default location. */
    private static boolean hasMigrations(ClassLoader classLoader) {
        if (NativeDetector.inNativeImage()) {
            // A native image cannot list class-path folders: finding nothing there is no sign that there is nothing.
            return true;
        }
        try {
            Resource[] found =
                    new PathMatchingResourcePatternResolver(classLoader).getResources("classpath*:db/migration/**/*");
            // Directories are listed too: a jar's as entries with no file name, a folder's as unreadable.
            return Arrays.stream(found)
                    .anyMatch(resource -> StringUtils.hasText(resource.getFilename()) && resource.isReadable());
        } catch (IOException ex) {
            // The class path could not be read here: leave Spring Boot's Flyway as the application has it.
            return true;
        }
    }
}
