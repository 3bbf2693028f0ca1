package io.github.bizlock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Explains Spring Boot's own Flyway failing on a schema with tables and no history of its own ("Found non-empty
 * schema(s) ... but no schema history table"), which never names bizlock although bizlock's tables may be what made
 * the schema non-empty: an application that starts using Flyway after bizlock created its tables, or one that keeps
 * Spring Boot's Flyway on ({@link ApplicationFlyway} leaves it on where the application asks for it). Spring Boot's
 * Flyway bean is named {@code flywayInitializer}; bizlock's own migration never fails this way (it starts its history
 * below V1). Matched by class name: Flyway is optional.
 */
class ApplicationFlywayFailureAnalyzer implements FailureAnalyzer {

    private static final String SPRING_BOOT_FLYWAY_BEAN = "flywayInitializer";
    private static final String FLYWAY_EXCEPTION = "org.flywaydb.core.api.FlywayException";
    private static final String NO_HISTORY = "but no schema history table";

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        if (!failedIn(failure, SPRING_BOOT_FLYWAY_BEAN)) {
            return null;
        }
        Throwable flyway = noHistory(failure);
        if (flyway == null) {
            return null;
        }
        return new FailureAnalysis(
                "Spring Boot's Flyway, which migrates the application's schema (bean '" + SPRING_BOOT_FLYWAY_BEAN
                        + "'), found tables but no schema history table of its own: " + flyway.getMessage()
                        + " The tables may be bizlock's: bizlock migrates them with a Flyway and a history of its own"
                        + " (biz_lock_migrations, for the default bizlock.table-name), apart from Spring Boot's. bizlock keeps Spring"
                        + " Boot's Flyway off only while the application has no migrations at classpath:db/migration"
                        + " and sets no spring.flyway.* property.",
                "If the application does not use Flyway itself, set spring.flyway.enabled=false; bizlock still"
                        + " creates and upgrades its tables. If it does, and the schema already has tables (bizlock's"
                        + " at least), set spring.flyway.baseline-on-migrate=true and spring.flyway.baseline-version=0,"
                        + " so that Flyway records the schema as it is and then runs the application's migrations"
                        + " from V1.",
                flyway);
    }

    private static boolean failedIn(Throwable failure, String beanName) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof BeanCreationException creation && beanName.equals(creation.getBeanName())) {
                return true;
            }
        }
        return false;
    }

    private static @Nullable Throwable noHistory(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (isFlywayException(cause.getClass())
                    && cause.getMessage() != null
                    && cause.getMessage().contains(NO_HISTORY)) {
                return cause;
            }
        }
        return null;
    }

    private static boolean isFlywayException(@Nullable Class<?> type) {
        for (Class<?> each = type; each != null; each = each.getSuperclass()) {
            if (each.getName().equals(FLYWAY_EXCEPTION)) {
                return true;
            }
        }
        return false;
    }
}
