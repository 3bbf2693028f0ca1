package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * NAMED locks are the server's, shared by every schema and account on it: the lock names bizlock hashes are scoped to
 * the lock tables' schema, so two applications on one server with the same lock names and keys do not exclude each
 * other; with a secret, nobody without it can compute a key's lock name.
 */
@LockTest
class NamedLockScopeTest {

    private static final LockKey KEY = new LockKey("customer", "ann@example.com");

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        assumeFalse(TestDatabases.server().isCluster(), "NAMED locks are refused on a multi-writer cluster");
    }

    @Test
    void theSameNameAndKeyInTwoSchemasOfOneServerAreTwoLocks(DataSource dataSource) throws Exception {
        try (TestDatabase other = TestDatabases.create()) {
            LockFixture.createSchema(other.dataSource());
            try (LockManager here = LockFixture.managerOfEveryMode(dataSource).build();
                    LockManager sameSchema =
                            LockFixture.managerOfEveryMode(dataSource).build();
                    LockManager otherSchema =
                            LockFixture.managerOfEveryMode(other.dataSource()).build()) {
                try (LockHandle held = here.tryAcquire(KEY, LockMode.NAMED, Duration.ZERO, null)
                        .orElseThrow()) {
                    assertThat(sameSchema.tryAcquire(KEY, LockMode.NAMED, Duration.ZERO, null))
                            .as("another instance of the application, on the same schema")
                            .isEmpty();

                    Optional<LockHandle> elsewhere = otherSchema.tryAcquire(KEY, LockMode.NAMED, Duration.ZERO, null);
                    assertThat(elsewhere)
                            .as("another application, in another schema of the server")
                            .isPresent();
                    elsewhere.orElseThrow().unlock();
                }
            }
        }
    }

    /**
     * With a secret, the server lock name of a key cannot be computed without it: an account on the server that
     * guesses a key finds its unkeyed name free while the lock is held. Instances that share the secret exclude each
     * other.
     */
    @Test
    void withASecretAGuessedKeysNameIsFreeWhileItsLockIsHeld(DataSource dataSource) throws Exception {
        LockDaos daos = LockFixture.daos(dataSource);
        LeaseDao dao = daos.leases();
        DataSource sessions = SessionLocks.dedicated(dataSource);
        SessionLockEngine unkeyed = LockFixture.named(daos, sessions, 2, "guess");
        try (LockManager keyed = withSecret(daos, sessions, "s3cret");
                LockManager sameSecret = withSecret(daos, sessions, "s3cret")) {
            try (LockHandle held =
                    keyed.tryAcquire(KEY, LockMode.NAMED, Duration.ZERO, null).orElseThrow()) {
                JdbcTemplate anyAccount = new JdbcTemplate(dataSource);
                assertThat(anyAccount.queryForObject("SELECT IS_USED_LOCK(?)", Long.class, unkeyed.serverLockName(KEY)))
                        .as("IS_USED_LOCK of the name computed without the secret")
                        .isNull();
                assertThat(sameSecret.tryAcquire(KEY, LockMode.NAMED, Duration.ZERO, null))
                        .as("another instance with the same secret")
                        .isEmpty();
            }
        } finally {
            unkeyed.close();
        }
    }

    private static LockManager withSecret(LockDaos daos, DataSource sessions, String secret) {
        String owner = InstanceId.generate();
        return LockFixture.manager(daos, owner)
                .engine(SessionLockEngine.named(
                        daos.dialect(),
                        daos.tokens(),
                        daos.schema(),
                        sessions,
                        2,
                        owner,
                        Duration.ofSeconds(1),
                        secret))
                .build();
    }
}
