package io.github.bizlock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.aop.InvalidDistributedLockException;
import io.github.bizlock.aop.RollbackOnLockLost;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.DatabaseRefusals;
import io.github.bizlock.service.LockDefaults;
import io.github.bizlock.service.LockObserver;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
import io.github.bizlock.service.LockTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What lock-core exports: the public API is the allow-list below, everything else is package-private or in a package
 * named {@code internal}; the API never shows an internal type; packages have no cycles; no Spring Boot.
 */
class ArchitectureTest {

    /**
     * Every public (or protected nested) type outside {@code ..internal..}. A new one is a decision: add it here, or make
     * it package-private, or move it to an {@code internal} package.
     */
    private static final Set<Class<?>> PUBLIC_API = Set.of(
            LockTemplate.class,
            LockHandle.class,
            MultiLockHandle.class,
            MultiLockOperations.class,
            // The semaphore: its handle, and the refusal of a name used with other permits.
            PermitHandle.class,
            PermitOperations.class,
            PermitsConflictException.class,
            LockOptions.class,
            LockMode.class,
            // A lock's read or write side (LockOptions.access, @DistributedLock(access = ...)).
            LockAccess.class,
            LockResult.class,
            LockedAction.class,
            LockLostEvent.class,
            LockLostException.class,
            LockLostListener.class,
            LockLostPolicy.class,
            LockAcquisitionException.class,
            LockModeConflictException.class,
            LockReleaseException.class,
            LossCause.class,
            DistributedLock.class,
            OnFailure.class,
            // What a plain Spring application registers as beans; the rest of aop is package-private.
            DistributedLockAdvisor.class,
            RollbackOnLockLost.class,
            // What a start-up failure report names (bizlock-spring-boot-autoconfigure's failure analyzer).
            InvalidDistributedLockException.class,
            // bizlock without Spring Boot.
            LockService.class,
            LockService.Builder.class,
            // The running service's faces for tools (Actuator, metrics, migrations): the LEASE table's DAO, a read
            // view, an observer SPI, the tables as a step before their check sees them.
            BizLockDao.class,
            BizLockDao.Row.class,
            LockStatus.class,
            LockStatus.LocalLock.class,
            LockObserver.class,
            LockObserver.Outcome.class,
            LockObserver.Acquisition.class,
            LockTables.class,
            LockDefaults.class,
            // What a step beside the service (the starter's migration, its first connection) makes of a refusal.
            DatabaseRefusals.class);

    private static final String INTERNAL = "..internal..";

    private static final JavaClasses CORE = ArchitectureRules.mainClassesBeside(LockTemplate.class);

    @Test
    void exportsOnlyTheAllowedPublicApiOutsideInternalPackages() {
        Set<String> exported = CORE.stream()
                .filter(type -> !type.getPackageName().contains(".internal"))
                .filter(ArchitectureTest::isExported)
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(exported)
                .as("public types outside internal packages: add a new one to PUBLIC_API, or make it package-private,"
                        + " or move it to an internal package")
                .containsExactlyInAnyOrderElementsOf(
                        PUBLIC_API.stream().map(Class::getName).toList());
    }

    @Test
    void publicApiShowsNoInternalType() {
        List<String> leaks = new ArrayList<>();
        CORE.stream()
                .filter(type -> !type.getPackageName().contains(".internal"))
                .filter(ArchitectureTest::isExported)
                .forEach(type -> leaks.addAll(internalTypesShownBy(type)));
        assertThat(leaks)
                .as("public signatures of the API that name internal types")
                .isEmpty();
    }

    /**
     * The ROW and NAMED engines are one class; their steps, sessions, pool, canceller and SQL stay inside its package,
     * so nothing else can hold a session or run a statement on it. LEASE's wake locks live on such sessions too, behind
     * one class of their own.
     */
    @Test
    void theSessionPackageExportsItsEngineAndTheWakeLocksOnly() {
        Set<String> exported = CORE.stream()
                .filter(type -> type.getPackageName().equals(SessionLockEngine.class.getPackageName()))
                .filter(ArchitectureTest::isExported)
                .filter(type -> !type.getName().startsWith(WakeLocks.class.getName() + "$")) // its result types
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(exported).containsExactlyInAnyOrder(SessionLockEngine.class.getName(), WakeLocks.class.getName());
    }

    @Test
    void apiPackagesDoNotDependOnInternals() {
        noClasses()
                .that()
                .resideInAnyPackage("io.github.bizlock", "io.github.bizlock.annotation", "io.github.bizlock.aop")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(INTERNAL)
                .check(CORE);
    }

    @Test
    void hasNoPackageCycles() {
        ArchitectureRules.noPackageCycles().check(CORE);
    }

    @Test
    void needsNoSpringBoot() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.springframework.boot..")
                .because("lock-core runs in plain Spring applications")
                .check(CORE);
    }

    /** Whether code outside the package can name the type: public or protected, and so is every enclosing type. */
    private static boolean isExported(JavaClass type) {
        boolean visible = type.getModifiers().contains(JavaModifier.PUBLIC)
                || type.getModifiers().contains(JavaModifier.PROTECTED);
        return visible
                && type.getEnclosingClass().map(ArchitectureTest::isExported).orElse(true);
    }

    private static boolean isExported(JavaMember member) {
        return member.getModifiers().contains(JavaModifier.PUBLIC)
                || member.getModifiers().contains(JavaModifier.PROTECTED);
    }

    private static List<String> internalTypesShownBy(JavaClass type) {
        List<String> leaks = new ArrayList<>();
        Stream.concat(type.getSuperclass().stream(), type.getInterfaces().stream())
                .forEach(supertype -> addInternal(leaks, type.getName() + " extends", supertype));
        type.getMembers().stream().filter(ArchitectureTest::isExported).forEach(member -> {
            String where = member.getFullName();
            if (member instanceof JavaMethod method) {
                addInternal(leaks, where + " returns", method.getReturnType());
            }
            if (member instanceof JavaCodeUnit code) {
                code.getParameterTypes().forEach(parameter -> addInternal(leaks, where + " takes", parameter));
                code.getThrowsClause().getTypes().forEach(thrown -> addInternal(leaks, where + " throws", thrown));
            }
            if (member instanceof JavaField field) {
                addInternal(leaks, where + " is of", field.getType());
            }
        });
        return leaks;
    }

    private static void addInternal(List<String> leaks, String where, JavaType type) {
        type.getAllInvolvedRawTypes().stream()
                .filter(raw -> raw.getPackageName().contains(".internal"))
                .forEach(raw -> leaks.add(where + " " + raw.getName()));
    }
}
