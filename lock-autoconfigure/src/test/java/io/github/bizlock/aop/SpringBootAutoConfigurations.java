package io.github.bizlock.aop;

import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configurations that the annotation tests run bizlock with, found by the name they have on the
 * Spring Boot line on the class path: Spring Boot 4 moved each to a module and package of its own. The same tests run on
 * Spring Boot 4 and, in the spring-boot-3 build, on Spring Boot 3.5 (README, "Spring Boot 3.5 and 4").
 */
final class SpringBootAutoConfigurations {

    private SpringBootAutoConfigurations() {}

    static Class<?> dataSource() {
        return either(
                "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");
    }

    static Class<?> dataSourceTransactionManager() {
        return either(
                "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
                "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration");
    }

    static Class<?> jdbcTemplate() {
        return either(
                "org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
                "org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration");
    }

    static Class<?> transaction() {
        return either(
                "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
                "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration");
    }

    static Class<?> transactionManagerCustomization() {
        return either(
                "org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration",
                "org.springframework.boot.autoconfigure.transaction.TransactionManagerCustomizationAutoConfiguration");
    }

    /** The Spring Boot 4 class if it is there, else the Spring Boot 3.5 one; neither fails naming both. */
    private static Class<?> either(String boot4, String boot3) {
        ClassLoader loader = SpringBootAutoConfigurations.class.getClassLoader();
        for (String name : new String[] {boot4, boot3}) {
            if (ClassUtils.isPresent(name, loader)) {
                return ClassUtils.resolveClassName(name, loader);
            }
        }
        throw new IllegalStateException(
                "neither " + boot4 + " (Spring Boot 4) nor " + boot3 + " (Spring Boot 3.5) is on the class path");
    }
}
