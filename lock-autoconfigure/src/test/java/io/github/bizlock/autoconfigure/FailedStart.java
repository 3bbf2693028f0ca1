package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Starts a real {@link SpringApplication} with bizlock that is expected to fail, and reads what Spring Boot prints: the
 * failure analysis a user sees, not the exception a test could catch.
 */
final class FailedStart {

    private static final String BANNER = "APPLICATION FAILED TO START";

    private FailedStart() {}

    /** What Spring Boot printed under "Description:" and "Action:". */
    record Analysis(String description, String action) {}

    /**
     * An application of a DataSource, transactions and bizlock (with its health indicator), configured on the command
     * line.
     */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        TransactionAutoConfiguration.class,
        BizLockAutoConfiguration.class,
        BizLockObservabilityAutoConfiguration.class
    })
    static class LockApplication {}

    /** The command-line arguments that point an application at the test database. */
    static List<String> on(TestDatabase database) {
        return new ArrayList<>(List.of(BizLockAutoConfigurationTest.datasource(database)));
    }

    /**
     * Runs the application with the given properties ({@code name=value}), expects its start to fail, and returns the
     * analysis Spring Boot printed; fails, showing the output, when it printed none (a bare stack trace).
     */
    static Analysis analysis(CapturedOutput output, List<String> properties) {
        return analysis(output, properties, new Class<?>[0]);
    }

    /** As {@link #analysis(CapturedOutput, List)}, for an application that has the given configurations too. */
    static Analysis analysis(CapturedOutput output, List<String> properties, Class<?>... configurations) {
        SpringApplication application = new SpringApplication(LockApplication.class);
        application.addPrimarySources(List.of(configurations));
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        return analysis(output, application, properties);
    }

    /** As {@link #analysis(CapturedOutput, List)}, for an application the caller has set up. */
    static Analysis analysis(CapturedOutput output, SpringApplication application, List<String> properties) {
        int start = output.getAll().length();
        String[] args = properties.stream().map(property -> "--" + property).toArray(String[]::new);
        assertThatThrownBy(() -> application.run(args)).as("the start fails").isNotNull();
        String printed = output.getAll().substring(start);
        assertThat(printed)
                .as("Spring Boot's failure analysis, not a stack trace")
                .contains(BANNER);
        String report = printed.substring(printed.indexOf(BANNER));
        int description = report.indexOf("Description:");
        int action = report.indexOf("Action:");
        assertThat(description).as("a Description: in\n%s", report).isPositive();
        assertThat(action).as("an Action: in\n%s", report).isGreaterThan(description);
        return new Analysis(
                report.substring(description + "Description:".length(), action).strip(),
                report.substring(action + "Action:".length()).strip());
    }

    /** Runs the application with the given properties, expects it to start, and closes it. */
    static void startsWith(List<String> properties) {
        start(properties).close();
    }

    /** Runs the application with the given properties and returns it, started; the caller closes it. */
    static ConfigurableApplicationContext start(List<String> properties) {
        SpringApplication application = new SpringApplication(LockApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        return application.run(
                properties.stream().map(property -> "--" + property).toArray(String[]::new));
    }
}
