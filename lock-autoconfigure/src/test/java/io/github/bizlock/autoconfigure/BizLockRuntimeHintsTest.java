package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The native-image hints of the auto-configuration, as Spring AOT finds and applies them. */
class BizLockRuntimeHintsTest {

    private final RuntimeHints hints = registered();

    @Test
    void areRegisteredThroughAotFactories() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                        .load(RuntimeHintsRegistrar.class))
                .hasAtLeastOneElementOfType(BizLockRuntimeHints.class);
    }

    @Test
    void coverTheClassesLookedUpByName() {
        assertThat(RuntimeHintsPredicates.reflection().onType(Flyway.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(FlywayAutoConfiguration.class))
                .accepts(hints);
    }

    @Test
    void leaveOutClassesThatAreNotThere() {
        // Spring Boot 3.5's name of the Flyway auto-configuration: not on this Spring Boot 4 class path.
        assertThat(hints.reflection().typeHints())
                .noneMatch(hint -> hint.getType().getName().startsWith("org.springframework.boot.autoconfigure."));
    }

    private static RuntimeHints registered() {
        RuntimeHints hints = new RuntimeHints();
        new BizLockRuntimeHints().registerHints(hints, BizLockRuntimeHintsTest.class.getClassLoader());
        return hints;
    }
}
