package io.github.bizlock.starter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.bizlock.LockTemplate;
import io.github.bizlock.autoconfigure.BizLockAutoConfiguration;
import io.github.bizlock.boot3.BizLockBoot3HealthAutoConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each library jar the starter brings names its module, so that an application on the module path requires a name that
 * does not change with the jar's file name. Checked on the jars a packaging build makes ({@code ./mvnw verify}); a
 * build that stops before packaging gives classes folders, which have no manifest to check.
 */
class AutomaticModuleNamesTest {

    static Stream<Arguments> libraryJars() {
        return Stream.of(
                Arguments.of(LockTemplate.class, "io.github.bizlock.core"),
                Arguments.of(BizLockAutoConfiguration.class, "io.github.bizlock.autoconfigure"),
                Arguments.of(BizLockBoot3HealthAutoConfiguration.class, "io.github.bizlock.autoconfigure.boot3"));
    }

    @ParameterizedTest
    @MethodSource("libraryJars")
    void everyLibraryJarNamesItsModule(Class<?> type, String moduleName) throws Exception {
        Path artifact =
                Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        assumeTrue(Files.isRegularFile(artifact), () -> type.getName() + " comes from a classes folder: " + artifact);
        try (JarFile jar = new JarFile(artifact.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                    .as("Automatic-Module-Name of " + artifact.getFileName())
                    .isEqualTo(moduleName);
        }
    }
}
