package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Templates become statements for the lock table and the server (and its start) that issues fencing tokens, rendered
 * once each.
 */
class DialectTest {

    private static final String TEMPLATE = "SELECT ${token_server} FROM ${table}";
    private static final String REIGN = "SELECT ${token_server}, ${token_boot} FROM ${table}";

    @Test
    void fencingTokensNameTheServerOnASingleServerAndNoServerOnAMultiWriterCluster() {
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock").render(TEMPLATE))
                .isEqualTo("SELECT @@server_id FROM app_lock");
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock").render(REIGN))
                .isEqualTo("SELECT @@server_id, COALESCE(@bizlock_token_boot, @bizlock_token_boot := COALESCE((SELECT"
                        + " UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED) FROM performance_schema.global_status"
                        + " WHERE VARIABLE_NAME = 'Uptime'), 0)) FROM app_lock");
        assertThat(Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock").render(REIGN))
                .isEqualTo("SELECT @@server_id, COALESCE(@bizlock_token_boot, @bizlock_token_boot := (SELECT"
                        + " UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED) FROM information_schema.GLOBAL_STATUS"
                        + " WHERE VARIABLE_NAME = 'UPTIME')) FROM app_lock");
        ClusterTopology galera = new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON", false);
        assertThat(Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock", galera)
                        .render(REIGN))
                .isEqualTo("SELECT 0, 0 FROM app_lock");
        ClusterTopology multiPrimary = new ClusterTopology(
                ClusterTopology.Kind.GROUP_REPLICATION_MULTI_PRIMARY,
                "group_replication_single_primary_mode=OFF",
                false);
        assertThat(Dialects.forServer("MySQL", "8.0.31", "app_lock", multiPrimary)
                        .render(REIGN))
                .isEqualTo("SELECT 0, 0 FROM app_lock");
    }

    @Test
    void aTemplateIsRenderedOnceAndItsStatementReused() {
        Dialect dialect = Dialects.forServer("MySQL", "8.0.31", "app_lock");
        String first = dialect.render(TEMPLATE);
        assertThat(dialect.render(TEMPLATE)).isSameAs(first);
    }

    @Test
    void pastTwoHundredFiftySixTemplatesStatementsAreRenderedWithoutBeingKept() {
        Dialect dialect = Dialects.forServer("MySQL", "8.0.31", "app_lock");
        String last = null;
        for (int i = 0; i < 256; i++) {
            last = dialect.render("SELECT " + i + " FROM ${table}");
        }
        assertThat(dialect.render("SELECT 255 FROM ${table}")).isSameAs(last);
        String unkept = dialect.render("SELECT 256 FROM ${table}");
        assertThat(unkept).isEqualTo("SELECT 256 FROM app_lock");
        assertThat(dialect.render("SELECT 256 FROM ${table}")).isEqualTo(unkept).isNotSameAs(unkept);
    }

    @Test
    void aTopologyUnknownAtStartIsReadAgainAtMostOnceASecondAndItsStatementsFollowWhatWasRead() {
        Dialect dialect =
                Dialects.forServer("MariaDB", "10.11.6-MariaDB", "app_lock", ClusterTopology.unknown("SHOW refused"));
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<ClusterTopology> server =
                new java.util.concurrent.atomic.AtomicReference<>(ClusterTopology.unknown("SHOW refused again"));
        dialect.readAgainWith(() -> {
            reads.incrementAndGet();
            return server.get();
        });
        assertThat(dialect.render(TEMPLATE)).isEqualTo("SELECT @@server_id FROM app_lock");

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
        assertThat(dialect.render(TEMPLATE))
                .as("statements rendered before are rendered again for the cluster")
                .isEqualTo("SELECT 0 FROM app_lock");
        dialect.currentTopology();
        assertThat(reads).as("a known topology is not read again").hasValue(2);
    }
}
