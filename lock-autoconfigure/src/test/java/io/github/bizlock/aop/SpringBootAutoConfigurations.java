package io.github.bizlock.aop;

import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configurations that the annotation tests run bizlock with, found by the name they have on the
 * Spring Boot line on the class path: Spring Boot 4 moved {@code org.springframework.boot.autoconfigure.<area>.<Name>}
 * to {@code org.springframework.boot.<area>.autoconfigure.<Name>}, in a module per area. The same tests run on Spring
 * Boot 4 and, in the spring-boot-3 build, on Spring Boot 3.5 (docs/spring-boot.md, "Spring Boot 3.5 and 4").
 */
final class SpringBootAutoConfigurations {

    private SpringBootAutoConfigurations() {}

    /** The auto-configuration {@code name} of {@code area} (e.g. "jdbc", "DataSourceAutoConfiguration"). */
    static Class<?> of(String area, String name) {
        String boot4 = "org.springframework.boot." + area + ".autoconfigure." + name;
        String boot3 = "org.springframework.boot.autoconfigure." + area + "." + name;
        ClassLoader loader = SpringBootAutoConfigurations.class.getClassLoader();
        for (String candidate : new String[] {boot4, boot3}) {
            if (ClassUtils.isPresent(candidate, loader)) {
                return ClassUtils.resolveClassName(candidate, loader);
            }
        }
        throw new IllegalStateException(
                "neither " + boot4 + " (Spring Boot 4) nor " + boot3 + " (Spring Boot 3.5) is on the class path");
    }
}
