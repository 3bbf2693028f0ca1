package io.github.bizlock.autoconfigure;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.github.bizlock.ArchitectureRules;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The auto-configuration module's packages ({@code autoconfigure}, {@code actuate}) have no cycles, and the module
 * builds bizlock through lock-core's public API only: the seam that lets lock-core's internals change freely.
 */
class ArchitectureTest {

    private static final JavaClasses AUTOCONFIGURE =
            ArchitectureRules.mainClassesBeside(BizLockAutoConfiguration.class);

    /** What lock-core offers its users: the API, the annotation, the advisor, and {@code LockService} and its faces. */
    private static final String[] LOCK_CORE_PUBLIC = {
        "io.github.bizlock", "io.github.bizlock.annotation", "io.github.bizlock.aop", "io.github.bizlock.service"
    };

    private static final String[] OWN = {"io.github.bizlock.autoconfigure..", "io.github.bizlock.actuate.."};

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

    /** No class, so no public signature either, names an internal type of lock-core. */
    @Test
    void reachesNoInternalTypeOfLockCore() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("..internal..")
                .because("the auto-configuration maps properties onto LockService.Builder and reads the running"
                        + " service through its public faces (README, \"How it is built\")")
                .check(AUTOCONFIGURE);
    }

    @Test
    void importsFromLockCoreOnlyItsPublicPackages() {
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("io.github.bizlock..")
                        .and(not(resideInAnyPackage(LOCK_CORE_PUBLIC)))
                        .and(not(resideInAnyPackage(OWN))))
                .check(AUTOCONFIGURE);
    }

    /** What the server's error codes mean is the dialect's to say, in one place per dialect (docs/dialects.md). */
    @Test
    void readsNoServerErrorCode() {
        noClasses()
                .should()
                .callMethod(SQLException.class, "getErrorCode")
                .because("the starter asks io.github.bizlock.service.DatabaseRefusals what a refusal means")
                .check(AUTOCONFIGURE);
    }
}
