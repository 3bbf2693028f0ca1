package io.github.bizlock.boot3;

import io.github.bizlock.autoconfigure.ApplicationFlyway;
import org.apache.commons.logging.Log;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.ClassUtils;

/**
 * {@link ApplicationFlyway} on Spring Boot 3.5, whose environment post-processors are of this type. Spring Boot 4 still
 * runs post-processors of this (deprecated) type, besides its own: there this one backs off, and the one in
 * {@code bizlock-spring-boot-autoconfigure} does the work. Not ordered: it runs after the application's configuration
 * is loaded.
 */
class Boot3ApplicationFlywayEnvironmentPostProcessor implements EnvironmentPostProcessor {

    /** Spring Boot 4's type of environment post-processors, which Spring Boot 3.5 does not have. */
    private static final String SPRING_BOOT_4_POST_PROCESSOR = "org.springframework.boot.EnvironmentPostProcessor";

    private final Log log;

    Boot3ApplicationFlywayEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(ApplicationFlyway.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!ClassUtils.isPresent(SPRING_BOOT_4_POST_PROCESSOR, application.getClassLoader())) {
            ApplicationFlyway.turnOffWhereUnused(environment, application.getClassLoader(), log);
        }
    }
}
