package io.github.bizlock.autoconfigure;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.github.bizlock.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** The auto-configuration's tests run their concurrent tasks on threads they own, alike on JDK 17 and 25. */
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
