package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.internal.jdbc.dialect.ClusterTopology.Kind;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which server settings can lose an acknowledged commit in a crash, and what the warning says. */
class CommitDurabilityTest {

    @Test
    void theServersDefaultsKeepEveryCommit() {
        assertThat(CommitDurability.hazard(
                        Map.of("innodb_flush_log_at_trx_commit", "1", "log_bin", "ON", "sync_binlog", "1"),
                        Kind.SINGLE_SERVER))
                .isNull();
        // MariaDB's defaults: no binary log, so its sync setting does not matter.
        assertThat(CommitDurability.hazard(
                        Map.of("innodb_flush_log_at_trx_commit", "1", "log_bin", "OFF", "sync_binlog", "0"),
                        Kind.SINGLE_SERVER))
                .isNull();
    }

    @Test
    void aRedoLogFlushedOnlyEverySecondIsNamedWithWhatACrashLosesAndTheFix() {
        assertThat(CommitDurability.hazard(Map.of("innodb_flush_log_at_trx_commit", "2"), Kind.SINGLE_SERVER))
                .contains("innodb_flush_log_at_trx_commit=2 lets a crash of the machine lose")
                .contains("granted again after the restart")
                .contains("Set innodb_flush_log_at_trx_commit=1");
        assertThat(CommitDurability.hazard(Map.of("innodb_flush_log_at_trx_commit", "0"), Kind.READ_ONLY))
                .contains("innodb_flush_log_at_trx_commit=0 lets a crash of the server lose");
    }

    @Test
    void aBinaryLogNotSyncedAtEachCommitIsNamed() {
        String hazard = CommitDurability.hazard(
                Map.of("innodb_flush_log_at_trx_commit", "1", "log_bin", "1", "sync_binlog", "0"),
                Kind.GROUP_REPLICATION_MULTI_PRIMARY);
        assertThat(hazard)
                .contains("log_bin=ON with sync_binlog=0")
                .contains("sync_binlog=1")
                .doesNotContain("innodb_flush_log_at_trx_commit=1 lets");
    }

    @Test
    void aGaleraNodeGetsItsCommitsBackFromTheClusterWhateverItsOwnFlush() {
        assertThat(CommitDurability.hazard(
                        Map.of("innodb_flush_log_at_trx_commit", "2", "log_bin", "ON", "sync_binlog", "0"),
                        Kind.GALERA))
                .isNull();
    }

    @Test
    void settingsTheServerDoesNotListAreNoHazard() {
        assertThat(CommitDurability.hazard(Map.of(), Kind.SINGLE_SERVER)).isNull();
    }
}
