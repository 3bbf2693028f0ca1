package io.github.bizlock.starter;

import io.github.bizlock.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts a test's Spring Boot application on its test database, as an application with {@code spring.datasource}. */
public final class TestApplications {

    private TestApplications() {}

    /** Starts {@code application}, with no web server, on {@code database}, with {@code properties} added. */
    public static ConfigurableApplicationContext start(
            Class<?> application, TestDatabase database, String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password()));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new))
                .run();
    }
}
