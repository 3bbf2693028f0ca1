package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.security.Principal;
import java.time.Duration;
import java.time.ZoneOffset;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The {@code bizlocks} endpoint's operations called directly, on a real database: the limits of its listing and the
 * answers of its force release that the web test does not reach.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class BizLocksEndpointTest {

    private BizLockDao dao;
    private LockManager manager;

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @BeforeEach
    void setUp(DataSource dataSource) {
        dao = LockFixture.dao(dataSource);
        manager = LockFixture.manager(dao, InstanceId.generate()).build();
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    private LockHandle hold(String name, String key) {
        try {
            return manager.tryAcquire(new LockKey(name, key), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
        } catch (InterruptedException ex) {
            throw new AssertionError(ex);
        }
    }

    private static SecurityContext as(@Nullable String user) {
        return new SecurityContext() {
            @Override
            public @Nullable Principal getPrincipal() {
                return user == null ? null : () -> user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }
        };
    }

    @Test
    void refusesAMaxLocksBelowOneAndListsOneLockWithMaxLocksOne() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new BizLocksEndpoint(dao, manager, 0, false))
                .withMessage("bizlock.endpoint.max-locks must be at least 1, was 0");
        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 1, false);

        try (LockHandle first = hold("single", "a")) {
            BizLocksEndpoint.LocksReport one = endpoint.locks();
            assertThat(one.held()).extracting(BizLocksEndpoint.HeldLock::key).containsExactly("a");
            assertThat(one.truncated())
                    .as("exactly max-locks held: nothing left out")
                    .isFalse();
            BizLocksEndpoint.HeldLock listed = one.held().get(0);
            LockRow row = dao.find(new LockKey("single", "a")).orElseThrow();
            assertThat(listed.fencingToken()).isEqualTo(first.fencingToken());
            assertThat(listed.owner()).isEqualTo(manager.instanceId());
            assertThat(listed.mode()).isEqualTo(LockMode.LEASE);
            assertThat(listed.acquiredAt())
                    .as("the database's time, in UTC")
                    .isEqualTo(row.acquiredAt().toInstant(ZoneOffset.UTC).toString());
            assertThat(listed.expiresAt())
                    .isEqualTo(row.expiresAt().toInstant(ZoneOffset.UTC).toString());
            assertThat(one.instance()).isEqualTo(manager.instanceId());

            try (LockHandle second = hold("single", "b")) {
                BizLocksEndpoint.LocksReport two = endpoint.locks();
                assertThat(two.held())
                        .extracting(BizLocksEndpoint.HeldLock::key)
                        .containsExactly("a");
                assertThat(two.truncated()).isTrue();
                assertThat(two.local())
                        .extracting(BizLocksEndpoint.InstanceLock::key)
                        .containsExactlyInAnyOrder("a", "b");
            }
        }
    }

    @Test
    void aForceReleaseOfANameOrKeyNoLockCanHaveIsABadRequest() {
        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);

        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> response = endpoint.release(" ", "1", as("ops"));

        assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_BAD_REQUEST);
        assertThat(response.getBody().released()).isFalse();
        assertThat(response.getBody().message()).contains("The lock name must not be blank");
    }

    @Test
    void aForceReleaseWithoutAPrincipalIsLoggedAsAnUnauthenticatedCaller(CapturedOutput output) {
        BizLocksEndpoint refusing = new BizLocksEndpoint(dao, manager, 10, false);
        assertThat(refusing.release("anon", "1", as(null)).getStatus()).isEqualTo(403);
        assertThat(output.getAll()).contains("lock anon/1 requested by an unauthenticated caller:");

        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);
        LockHandle held = hold("anon", "2");
        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> released = endpoint.release("anon", "2", as(null));
        assertThat(released.getStatus()).isEqualTo(200);
        assertThat(released.getBody().formerOwner()).isEqualTo(manager.instanceId());
        assertThat(output.getAll())
                .contains("bizlock force-released lock anon/2 (owner " + manager.instanceId() + ", fencing token "
                        + held.fencingToken() + ") at the request of an unauthenticated caller");
    }

    @Test
    void aForceReleaseOfALockReleasedBeforeNamesNoFormerOwner() {
        BizLocksEndpoint endpoint = new BizLocksEndpoint(dao, manager, 10, true);
        hold("done", "1").unlock(); // its row stays, free

        WebEndpointResponse<BizLocksEndpoint.ForceReleaseResult> response = endpoint.release("done", "1", as("ops"));

        assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
        assertThat(response.getBody().released()).isFalse();
        assertThat(response.getBody().formerOwner()).isNull();
    }
}
