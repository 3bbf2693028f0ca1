package io.github.bizlock.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

/**
 * The tests of this module run where a Spring Boot 3.5 application runs bizlock: Spring Boot 3.5 and Spring Framework
 * 6.2, and none of Spring Boot 4's jars, which the starter must not bring (next to Boot 3.5 they fail the start with
 * "bean 'hikariPoolDataSourceMetadataProvider' ... already defined").
 */
class SpringBootLineTest {

    private static final Pattern SPRING_BOOT_JAR = Pattern.compile("/(spring-boot[a-z-]*)-(\\d[^/]*)\\.jar!/");

    @Test
    void springBoot35AndSpringFramework62() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        assertThat(SpringVersion.getVersion()).startsWith("6.2.");
    }

    @Test
    void everySpringBootJarIsOfSpringBoot35() throws IOException {
        List<URL> manifests = Collections.list(getClass().getClassLoader().getResources("META-INF/MANIFEST.MF"));
        List<String> springBootJars = manifests.stream()
                .map(url -> SPRING_BOOT_JAR.matcher(url.toString()))
                .filter(Matcher::find)
                .map(jar -> jar.group(1) + " " + jar.group(2))
                .toList();
        assertThat(springBootJars)
                .contains("spring-boot " + SpringBootVersion.getVersion())
                .allSatisfy(jar -> assertThat(jar).contains(" 3.5."));
    }
}
