package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.FieldHint;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The native-image hints of lock-core, as Spring AOT finds and applies them. */
class LockJdbcRuntimeHintsTest {

    private final RuntimeHints hints = registered();

    @Test
    void areRegisteredThroughAotFactories() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                        .load(RuntimeHintsRegistrar.class))
                .hasAtLeastOneElementOfType(LockJdbcRuntimeHints.class);
    }

    @Test
    void coverEveryMigrationScript() throws IOException {
        Resource[] scripts =
                new PathMatchingResourcePatternResolver().getResources(LockSchema.MIGRATION_LOCATION + "/*");
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(6);
        for (Resource script : scripts) {
            assertThat(RuntimeHintsPredicates.resource().forResource("db/bizlock/migration/" + script.getFilename()))
                    .as(script.getFilename())
                    .accepts(hints);
        }
    }

    @Test
    void coverTheProxiesOfLentConnections() {
        assertThat(RuntimeHintsPredicates.proxies().forInterfaces(Connection.class))
                .accepts(hints);
    }

    @Test
    void coverHikariLookedUpByNameAndTheFieldsItsSettingsAreCopiedWith() {
        assertThat(RuntimeHintsPredicates.reflection().onType(HikariDataSource.class))
                .accepts(hints);
        TypeHint config = hints.reflection().getTypeHint(HikariConfig.class);
        assertThat(config).isNotNull();
        List<String> fields = config.fields().map(FieldHint::getName).toList();
        assertThat(fields)
                .containsAll(Arrays.stream(HikariConfig.class.getDeclaredFields())
                        .map(Field::getName)
                        .toList());
    }

    private static RuntimeHints registered() {
        RuntimeHints hints = new RuntimeHints();
        new LockJdbcRuntimeHints().registerHints(hints, LockJdbcRuntimeHintsTest.class.getClassLoader());
        return hints;
    }
}
