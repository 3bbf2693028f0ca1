package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Templates become statements for the lock table and the server (and its start) that issues fencing tokens, rendered
 * when their holder is built, in each form a deployment needs.
 */
class DialectTest {

    private static final String TEMPLATE = "SELECT ${token_server} FROM ${table}";
    private static final String REIGN = "SELECT ${token_server}, ${token_boot} FROM ${table}";

    @Test
    void fencingTokensNameTheServerOnASingleServerAndNoServerOnAMultiWriterCluster() {
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock")
                        .statement(TEMPLATE)
                        .sql())
                .isEqualTo("SELECT @@server_id FROM app_lock");
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock")
                        .statement(REIGN)
                        .sql())
                .isEqualTo("SELECT @@server_id, COALESCE(@bizlock_token_boot, @bizlock_token_boot := COALESCE((SELECT"
                        + " UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED) FROM performance_schema.global_status"
                        + " WHERE VARIABLE_NAME = 'Uptime'), 0)) FROM app_lock");
        assertThat(Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock")
                        .statement(REIGN)
                        .sql())
                .isEqualTo("SELECT @@server_id, COALESCE(@bizlock_token_boot, @bizlock_token_boot := (SELECT"
                        + " UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED) FROM information_schema.GLOBAL_STATUS"
                        + " WHERE VARIABLE_NAME = 'UPTIME')) FROM app_lock");
        ClusterTopology galera = new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON", false);
        assertThat(Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock", galera)
                        .statement(REIGN)
                        .sql())
                .isEqualTo("SELECT 0, 0 FROM app_lock");
        ClusterTopology multiPrimary = new ClusterTopology(
                ClusterTopology.Kind.GROUP_REPLICATION_MULTI_PRIMARY,
                "group_replication_single_primary_mode=OFF",
                false);
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock", multiPrimary)
                        .statement(REIGN)
                        .sql())
                .isEqualTo("SELECT 0, 0 FROM app_lock");
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock", multiPrimary)
                        .causal("UPDATE ${table} SET a = 1")
                        .sql())
                .as("Group Replication has no causality prefix")
                .isEqualTo("UPDATE app_lock SET a = 1");
    }

    @Test
    void aStatementIsRenderedWhenItIsBuiltAndTheSameTextIsUsedAtEveryUse() {
        Statement statement = Dialects.forServer("MySQL", "8.0.31", "app_lock").statement(TEMPLATE);
        assertThat(statement.sql()).isSameAs(statement.sql()).isEqualTo(statement.toString());
        LeaseSql lease = new LeaseSql(Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock"));
        assertThat(lease.acquireNew()).isSameAs(lease.acquireNew()).doesNotContain("${");
        assertThat(lease.release()).isSameAs(lease.release());
        assertThat(lease.find()).isSameAs(lease.find());
    }

    @Test
    void aPlaceholderLeftInATemplateFailsWhenItsStatementsAreBuiltNotAtTheirFirstUse() {
        Dialect dialect = Dialects.forServer("MySQL", "8.0.31", "app_lock");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> dialect.render("SELECT * FROM ${tabel}"))
                .withMessageContaining("${tabel}");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> dialect.statement("SELECT ${token_server} FROM ${table} WHERE ${free}"))
                .withMessageContaining("${free}");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> dialect.causal("UPDATE ${table} SET a = ${value}"))
                .withMessageContaining("${value}");
        assertThat(dialect.render("SELECT ${name} FROM ${table}", "name")).isEqualTo("SELECT ${name} FROM app_lock");
    }

    @Test
    void aStatementThatIssuesTokensIsRefusedAFormForOneDeploymentOnly() {
        Dialect dialect = Dialects.forServer("MySQL", "8.0.31", "app_lock");
        assertThatIllegalArgumentException().isThrownBy(() -> dialect.render(TEMPLATE));
        assertThatIllegalArgumentException().isThrownBy(() -> dialect.render("SELECT ${token_boot}"));
    }

    @Test
    void fillReplacesEveryOccurrenceOfOnePlaceholder() {
        assertThat(Dialect.fill("${a} ${b} ${a}", "a", "x")).isEqualTo("x ${b} x");
    }

    @Test
    void aTopologyUnknownAtStartIsReadAgainAtMostOnceASecondAndStatementsBuiltBeforeFollowWhatWasRead() {
        Dialect dialect =
                Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock", ClusterTopology.unknown("SHOW refused"));
        AtomicInteger reads = new AtomicInteger();
        AtomicReference<ClusterTopology> server = new AtomicReference<>(ClusterTopology.unknown("SHOW refused again"));
        dialect.readAgainWith(() -> {
            reads.incrementAndGet();
            return server.get();
        });
        Statement issuing = dialect.statement(TEMPLATE);
        Statement causal = dialect.causal("UPDATE ${table} SET a = 1");
        assertThat(issuing.sql()).isEqualTo("SELECT @@server_id FROM app_lock");
        assertThat(causal.sql()).isEqualTo("UPDATE app_lock SET a = 1");

        assertThat(dialect.currentTopology().setting()).isEqualTo("SHOW refused again");
        assertThat(dialect.currentTopology().known()).isFalse();
        assertThat(reads)
                .as("the second look within a second does not ask the server")
                .hasValue(1);

        server.set(new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON", false));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!dialect.currentTopology().known() && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        assertThat(dialect.topology().kind()).isEqualTo(ClusterTopology.Kind.GALERA);
        assertThat(reads).hasValue(2);
        assertThat(issuing.sql())
                .as("statements built before take the cluster's form")
                .isEqualTo("SELECT 0 FROM app_lock");
        assertThat(causal.sql()).isEqualTo("SET STATEMENT wsrep_sync_wait = 3 FOR UPDATE app_lock SET a = 1");
        dialect.currentTopology();
        assertThat(reads).as("a known topology is not read again").hasValue(2);
    }
}
