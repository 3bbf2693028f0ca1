package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** What a {@link LockService} keeps apart from the rest of the server and of the application. */
@ExtendWith(TestDatabaseExtension.class)
class LockServiceIsolationTest {

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    private static LockService.Builder named(TestDatabase database) {
        DataSource sessions = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        return LockService.builder(database.dataSource())
                .sessionDataSource(sessions)
                .housekeeping(false);
    }

    @Test
    void namedLocksAreKeyedByTheSecretServicesShare(TestDatabase database) {
        assumeFalse(TestDatabases.server().isCluster(), "NAMED locks are refused on a multi-writer cluster");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> named(database).namedSecret(" "))
                .withMessage("namedSecret must not be blank");
        LockOptions nowOrNever = LockOptions.defaults().mode(LockMode.NAMED).waitTime(Duration.ZERO);
        try (LockService keyed = named(database).namedSecret("s3cret").build();
                LockService sameSecret = named(database).namedSecret("s3cret").build();
                LockService unkeyed = named(database).build()) {
            try (LockHandle held = keyed.template()
                    .tryAcquire("customer", "ann@example.com", nowOrNever)
                    .orElseThrow()) {
                assertThat(sameSecret.template().tryAcquire("customer", "ann@example.com", nowOrNever))
                        .as("another instance with the same secret")
                        .isEmpty();
                Optional<LockHandle> other = unkeyed.template().tryAcquire("customer", "ann@example.com", nowOrNever);
                assertThat(other)
                        .as("without the secret the lock's name is another one")
                        .isPresent();
                other.orElseThrow().unlock();
            }
        }
    }
}
