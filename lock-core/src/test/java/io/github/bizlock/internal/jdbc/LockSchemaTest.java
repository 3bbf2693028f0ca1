package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.test.TestDatabaseExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The check of the lock tables, against tables made migration by migration, as by an operator who ran the DDL of some
 * versions by hand.
 */
@ExtendWith(TestDatabaseExtension.class)
class LockSchemaTest {

    private static final String[] MIGRATIONS = {
        "V1__create_biz_lock.sql",
        "V2__row_and_named.sql",
        "V3__row_created_at_index.sql",
        "V4__lock_modes.sql",
        "V5__token_server.sql",
        "V6__token_epoch.sql",
        "V7__read_write_locks.sql",
        "V8__semaphore_permits.sql"
    };

    @Test
    void tablesMadeByHandAreAtTheLastVersionWhoseTablesIndexesAndColumnsAllExist(DataSource dataSource) {
        LockSchema schema = schema(dataSource, "hand_lock");
        assertThat(schema.versionWithoutHistory()).isZero();
        assertThat(schema.missingTables())
                .containsExactly(
                        "hand_lock",
                        "hand_lock_token_floor",
                        "hand_lock_row",
                        "hand_lock_token",
                        "hand_lock_mode",
                        "hand_lock_reader");

        int last = version(MIGRATIONS[MIGRATIONS.length - 1]);
        for (String migration : MIGRATIONS) {
            int version = version(migration);
            migrate(dataSource, "hand_lock", version);
            assertThat(schema.versionWithoutHistory()).as("after V%d", version).isEqualTo(version);
            if (version == 1) {
                assertThat(schema.missingTables())
                        .containsExactly("hand_lock_row", "hand_lock_token", "hand_lock_mode", "hand_lock_reader");
            }
            if (version >= 4 && version < last) {
                if (version <= 6) {
                    assertThat(schema.missingTables()).containsExactly("hand_lock_reader");
                } else {
                    assertThat(schema.missingTables()).isEmpty();
                }
                assertThatIllegalStateException()
                        .isThrownBy(schema::verify)
                        .withMessageContaining("lacks a column of this version");
            }
        }
        assertThatCode(schema::verify).doesNotThrowAnyException();
    }

    @Test
    void tablesThatMatchNoVersionFailNamingWhatExistsAndWhatToCreate(DataSource dataSource) {
        migrate(dataSource, "odd_lock", 1);
        migrate(dataSource, "odd_lock", 2);
        new JdbcTemplate(dataSource).execute("DROP TABLE odd_lock_token_floor");

        assertThatIllegalStateException()
                .isThrownBy(schema(dataSource, "odd_lock")::versionWithoutHistory)
                .withMessageContaining("match no version of them: odd_lock, odd_lock_row, odd_lock_token exist, but"
                        + " odd_lock_token_floor, odd_lock_row_created_at")
                .withMessageContaining("CREATE TABLE odd_lock_token_floor");
    }

    /**
     * V6 on tables with token counters: they may hold tokens of a failover V5 left to their next token, so the floor
     * counts as another reign's and the next token starts a new epoch; a schema with no counter yet issues 1, 2, ...
     */
    @Test
    void countersThatExistWhenV6IsAppliedStartANewEpochAtTheirNextToken(DataSource dataSource) {
        LockKey key = new LockKey("upgrade", "k");
        for (String table : new String[] {"used_lock", "unused_lock"}) {
            for (int version = 1; version <= 5; version++) {
                migrate(dataSource, table, version);
            }
        }
        new JdbcTemplate(dataSource)
                .update("INSERT INTO used_lock_token (biz_type, biz_id, lock_mode, last_token, modified_at)"
                        + " VALUES ('upgrade', 'k', 'NAMED', 7, UTC_TIMESTAMP(6))");
        migrate(dataSource, "used_lock", 6);
        migrate(dataSource, "unused_lock", 6);

        assertThat(tokens(dataSource, "used_lock").issue(key, LockMode.NAMED, 1))
                .as("the counter's next token, at least one epoch (2^32) above 7")
                .isGreaterThan(7 + TokenFloor.FAILOVER_JUMP);
        assertThat(tokens(dataSource, "unused_lock").issue(key, LockMode.NAMED, 1))
                .as("a new schema's first token")
                .isEqualTo(1);
        assertThat(tokens(dataSource, "unused_lock").issue(key, LockMode.NAMED, 1))
                .isEqualTo(2);
    }

    private static TokenIssuer tokens(DataSource dataSource, String table) {
        return dao(dataSource, table).tokens();
    }

    private static LockSchema schema(DataSource dataSource, String table) {
        return dao(dataSource, table).schema();
    }

    private static LockDaos dao(DataSource dataSource, String table) {
        return LockDaos.of(
                dataSource, new DataSourceTransactionManager(dataSource), Dialects.detect(dataSource, table));
    }

    /** The version of a migration's file, {@code V<version>__...}. */
    private static int version(String migration) {
        return Integer.parseInt(migration.substring(1, migration.indexOf("__")));
    }

    /** Runs the statements of one migration ({@code version} from 1), as an operator would from its file. */
    private static void migrate(DataSource dataSource, String table, int version) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String file = Arrays.stream(MIGRATIONS)
                .filter(migration -> version(migration) == version)
                .findFirst()
                .orElseThrow();
        String sql = read("db/bizlock/migration/" + file)
                .replace("${" + LockSchema.TABLE_PLACEHOLDER + "}", table)
                .replaceAll("(?m)^--.*$", "");
        Arrays.stream(sql.split(";"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .forEach(jdbc::execute);
    }

    private static String read(String resource) {
        try (InputStream in = LockSchemaTest.class.getClassLoader().getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
