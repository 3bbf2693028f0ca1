package io.github.bizlock;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/** Architecture rules that every module's tests apply to its own main classes. */
public final class ArchitectureRules {

    private static final String BASE_PACKAGE = "io.github.bizlock";

    private ArchitectureRules() {}

    /** The main classes of the module (jar or classes folder) that holds {@code anyClass}, and nothing else. */
    public static JavaClasses mainClassesBeside(Class<?> anyClass) {
        return new ClassFileImporter()
                .importUrl(anyClass.getProtectionDomain().getCodeSource().getLocation());
    }

    /** No two packages of bizlock depend on each other, directly or through others: each package is a slice. */
    public static ArchRule noPackageCycles() {
        return slices().assignedFrom(new SliceAssignment() {
                    @Override
                    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                        String name = javaClass.getPackageName();
                        return name.equals(BASE_PACKAGE) || name.startsWith(BASE_PACKAGE + ".")
                                ? SliceIdentifier.of(name)
                                : SliceIdentifier.ignore();
                    }

                    @Override
                    public String getDescription() {
                        return "the packages of " + BASE_PACKAGE;
                    }
                })
                .should()
                .beFreeOfCycles();
    }
}
