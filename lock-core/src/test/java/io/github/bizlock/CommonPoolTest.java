package io.github.bizlock;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/** lock-core's tests run their concurrent tasks on threads they own, so they behave alike on JDK 17 and 25. */
class CommonPoolTest {

    @Test
    void testsStartNoTaskOnTheCommonPool() {
        ArchitectureRules.noTaskOnTheCommonPool()
                .check(new ClassFileImporter()
                        .importUrl(CommonPoolTest.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()));
    }
}
