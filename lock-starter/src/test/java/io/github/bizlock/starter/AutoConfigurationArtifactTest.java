package io.github.bizlock.starter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.autoconfigure.BizLockAutoConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The auto-configuration as the starter brings it to an application: its jar once the build has packaged it (its
 * classes folder in a build that stops before), with the generated metadata that IDEs complete {@code bizlock.*} from.
 * JDK 23+ runs no annotation processor found on the class path, so without the processor declared in the build the
 * jar would lack it.
 */
class AutoConfigurationArtifactTest {

    private static final URL ARTIFACT =
            BizLockAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation();

    private static String read(String resource) throws IOException {
        try (URLClassLoader artifact = new URLClassLoader(new URL[] {ARTIFACT}, null);
                InputStream in = artifact.getResourceAsStream(resource)) {
            assertThat(in).as(resource + " in " + ARTIFACT).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void carriesThePropertyMetadata() throws IOException {
        Map<String, Object> metadata =
                JsonParserFactory.getJsonParser().parseMap(read("META-INF/spring-configuration-metadata.json"));
        assertThat((List<Map<String, Object>>) metadata.get("properties"))
                .extracting(property -> property.get("name"))
                .contains("bizlock.enabled", "bizlock.mode", "bizlock.wait-time", "bizlock.migration.enabled");
        assertThat((List<Map<String, Object>>) metadata.get("hints"))
                .extracting(hint -> hint.get("name"))
                .contains("bizlock.mode");
    }

    @Test
    void carriesTheAutoConfigurationsAndTheirConditions() throws IOException {
        assertThat(read("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports"))
                .contains(BizLockAutoConfiguration.class.getName());
        assertThat(read("META-INF/spring-autoconfigure-metadata.properties"))
                .contains(BizLockAutoConfiguration.class.getName() + ".ConditionalOnClass");
    }

    @Test
    void carriesTheLicense() throws IOException {
        assertThat(read("META-INF/LICENSE")).contains("Apache License", "Version 2.0");
    }
}
