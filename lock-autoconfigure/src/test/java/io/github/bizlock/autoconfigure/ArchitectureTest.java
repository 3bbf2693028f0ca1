package io.github.bizlock.autoconfigure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.github.bizlock.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** The auto-configuration module's packages ({@code autoconfigure}, {@code actuate}) have no cycles. */
class ArchitectureTest {

    private static final JavaClasses AUTOCONFIGURE =
            ArchitectureRules.mainClassesBeside(BizLockAutoConfiguration.class);

    @Test
    void hasNoPackageCycles() {
        ArchitectureRules.noPackageCycles().check(AUTOCONFIGURE);
    }

    @Test
    void actuateKnowsNothingOfTheWiring() {
        noClasses()
                .that()
                .resideInAPackage("io.github.bizlock.actuate..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.github.bizlock.autoconfigure..")
                .check(AUTOCONFIGURE);
    }
}
