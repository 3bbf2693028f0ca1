package io.github.bizlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TestDatabaseKindTest {

    private final String original = System.getProperty(TestDatabaseKind.ENVIRONMENT_VARIABLE);

    @AfterEach
    void restore() {
        if (original == null) {
            System.clearProperty(TestDatabaseKind.ENVIRONMENT_VARIABLE);
        } else {
            System.setProperty(TestDatabaseKind.ENVIRONMENT_VARIABLE, original);
        }
    }

    @Test
    void readsTheKindIgnoringCase() {
        System.setProperty(TestDatabaseKind.ENVIRONMENT_VARIABLE, " MariaDB ");
        assertThat(TestDatabaseKind.fromEnvironment()).isEqualTo(TestDatabaseKind.MARIADB);
    }

    @Test
    void namesTheChoicesWhenTheKindIsUnknown() {
        System.setProperty(TestDatabaseKind.ENVIRONMENT_VARIABLE, "oracle");
        assertThatIllegalStateException()
                .isThrownBy(TestDatabaseKind::fromEnvironment)
                .withMessageContaining("BIZLOCK_TEST_DB=oracle")
                .withMessageContaining("mysql, mariadb, testcontainers");
    }
}
