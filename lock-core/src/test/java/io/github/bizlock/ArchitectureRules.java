package io.github.bizlock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.BaseStream;

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

    /**
     * No class hands work to the common {@code ForkJoinPool}: no {@code CompletableFuture.*Async} call without an
     * executor, no parallel stream. Its size depends on the JDK and the CPUs (JDK 25 on 2 CPUs gives it one worker),
     * so tasks that wait for one another there run together on one machine and hang on another.
     */
    public static ArchRule noTaskOnTheCommonPool() {
        return noClasses()
                .should()
                .callMethodWhere(new DescribedPredicate<JavaMethodCall>("a task on the common pool") {
                    @Override
                    public boolean test(JavaMethodCall call) {
                        String name = call.getName();
                        JavaClass owner = call.getTargetOwner();
                        if (owner.isAssignableTo(CompletableFuture.class) && name.endsWith("Async")) {
                            return call.getTarget().getRawParameterTypes().stream()
                                    .noneMatch(type -> type.isAssignableTo(Executor.class));
                        }
                        return name.equals("parallelStream")
                                || (name.equals("parallel") && owner.isAssignableTo(BaseStream.class));
                    }
                })
                .because("tests give each task a thread of its own (ThreadPerTask.EXECUTOR) or an executor they own");
    }
}
