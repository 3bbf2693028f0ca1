package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.bizlock.LockFixture;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The NAMED engine used directly: fast twin of {@link NamedLockTest} for a mutation run. */
class NamedLockEngineTest extends AbstractSessionEngineTest {

    @Override
    protected SessionLockEngine engine(LockDaos daos, DataSource sessions, String owner) {
        return LockFixture.named(daos, sessions, 2, owner);
    }

    @Test
    void theServerLockNameIsTheHexSha256OfSchemaTableNameAndKeyKeepingTheKeysCase() throws Exception {
        SessionLockEngine engine = a;
        String schema = new JdbcTemplate(plain).queryForObject("SELECT DATABASE()", String.class);

        String name = engine.serverLockName(new LockKey("order", "42"));

        assertThat(name)
                .isEqualTo(HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-256")
                                .digest((schema.toLowerCase(Locale.ROOT) + "\0biz_lock\0order\0" + "42")
                                        .getBytes(StandardCharsets.UTF_8))))
                .isNotEqualTo(engine.serverLockName(new LockKey("Order", "42")))
                .isNotEqualTo(engine.serverLockName(new LockKey("order4", "2")));
    }

    @Test
    void withASecretTheServerLockNameIsAnHmacKeyedByIt() throws Exception {
        String schema = new JdbcTemplate(plain).queryForObject("SELECT DATABASE()", String.class);
        SessionLockEngine keyed = SessionLockEngine.named(
                daos.dialect(), daos.tokens(), daos.schema(), plain, 1, "c", Duration.ofSeconds(1), "s3cret");
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec("s3cret".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));

        assertThat(keyed.serverLockName(new LockKey("order", "42")))
                .isEqualTo(HexFormat.of()
                        .formatHex(hmac.doFinal((schema.toLowerCase(Locale.ROOT) + "\0biz_lock\0order\0" + "42")
                                .getBytes(StandardCharsets.UTF_8))))
                .isNotEqualTo(a.serverLockName(new LockKey("order", "42")));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> SessionLockEngine.named(
                        daos.dialect(), daos.tokens(), daos.schema(), plain, 1, "c", Duration.ofSeconds(1), " "))
                .withMessageContaining("secret must not be blank");
    }

    @Test
    void aSessionRunsInAutocommitAndItsLockIsTheServersNamedLock() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());
        Connection connection = connectionOf(grant);

        assertThat(connection.getAutoCommit()).isTrue();
        Long holder =
                new JdbcTemplate(plain).queryForObject("SELECT IS_USED_LOCK(?)", Long.class, a.serverLockName(key));
        assertThat(holder).isEqualTo(connectionIdOf(grant));
        assertThat(a.release(grant)).isNull();
        Long after =
                new JdbcTemplate(plain).queryForObject("SELECT IS_USED_LOCK(?)", Long.class, a.serverLockName(key));
        assertThat(after).isNull();
    }
}
