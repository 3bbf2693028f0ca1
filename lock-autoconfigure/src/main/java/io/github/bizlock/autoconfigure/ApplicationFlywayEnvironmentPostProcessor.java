package io.github.bizlock.autoconfigure;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * {@link ApplicationFlyway} on Spring Boot 4, whose environment post-processors are of this type; Spring Boot 3.5's are
 * of another, in {@code bizlock-spring-boot3-autoconfigure}. Not ordered: it runs after the application's
 * configuration is loaded.
 */
class ApplicationFlywayEnvironmentPostProcessor implements EnvironmentPostProcessor {

    private final Log log;

    ApplicationFlywayEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(ApplicationFlyway.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        ApplicationFlyway.turnOffWhereUnused(environment, application.getClassLoader(), log);
    }
}
