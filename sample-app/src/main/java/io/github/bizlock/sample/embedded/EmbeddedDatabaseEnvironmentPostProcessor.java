package io.github.bizlock.sample.embedded;

import io.github.bizlock.test.DatabaseServer;
import io.github.bizlock.test.EmbeddedMySqlServer;
import java.nio.file.Path;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * When {@code spring.datasource.url} is not set, points the application at an embedded MySQL 8.0 on
 * {@code sample.embedded-db.port} (default 33306), starting it if no process has yet. Replicas started on other HTTP
 * ports find it running and share it, like replicas of a service share one database. The server stops with the
 * replica that started it. {@code sample.embedded-db.enabled=false} turns this off.
 *
 * <p>Not while Spring AOT processes the application at build time ({@code process-aot}): that run prepares this same
 * environment but only generates code, so it needs no database, and a server it started would outlive the build.
 */
public class EmbeddedDatabaseEnvironmentPostProcessor implements EnvironmentPostProcessor {

    static final String DATABASE = "bizlock_sample";

    /** The system property Spring sets while AOT processing runs ({@code AbstractAotProcessor}). */
    private static final String AOT_PROCESSING = "spring.aot.processing";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (Boolean.getBoolean(AOT_PROCESSING)
                || environment.containsProperty("spring.datasource.url")
                || !environment.getProperty("sample.embedded-db.enabled", Boolean.class, true)) {
            return;
        }
        int port = environment.getProperty("sample.embedded-db.port", Integer.class, 33306);
        Path dataDirectory = Path.of(environment.getProperty(
                "sample.embedded-db.directory",
                Path.of(System.getProperty("user.home"), ".cache", "bizlock", "sample-mysql")
                        .toString()));
        DatabaseServer server = EmbeddedMySqlServer.startOrReuse(dataDirectory, port);
        environment
                .getPropertySources()
                .addLast(new MapPropertySource(
                        "bizlockSampleEmbeddedDatabase",
                        Map.of(
                                "spring.datasource.url",
                                server.jdbcUrl(DATABASE) + "&createDatabaseIfNotExist=true",
                                "spring.datasource.username",
                                server.username(),
                                "spring.datasource.password",
                                server.password())));
        System.out.println("bizlock sample: using embedded MySQL 8.0 on 127.0.0.1:" + port + " (" + server.origin()
                + "), data in " + dataDirectory);
    }
}
