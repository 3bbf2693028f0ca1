package io.github.bizlock.internal.jdbc.dialect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Whether the server keeps every commit it acknowledged through a crash, which fencing tokens and LEASE rows rely on:
 * a commit lost in a crash lets the server, once restarted, grant a lock or issue a fencing token a second time while a
 * holder from before the crash still acts on the first.
 */
final class CommitDurability {

    private CommitDurability() {}

    /**
     * What a crash could lose with the given server settings, naming each setting and its fix; {@code null} when every
     * acknowledged commit survives a crash of the server or of its machine.
     *
     * @param settings lower-case variable names and their values, as {@link TopologyProbe} reads them
     */
    static @Nullable String hazard(Map<String, String> settings, ClusterTopology.Kind kind) {
        if (kind == ClusterTopology.Kind.GALERA) {
            // A commit is certified on every node before it is acknowledged: a node that crashes gets it back from
            // the others when it rejoins, whatever its own flush setting.
            return null;
        }
        List<String> hazards = new ArrayList<>();
        String flush = settings.get("innodb_flush_log_at_trx_commit");
        if ("0".equals(flush)) {
            hazards.add("innodb_flush_log_at_trx_commit=0 lets a crash of the server lose about the last second of"
                    + " commits");
        } else if ("2".equals(flush)) {
            hazards.add("innodb_flush_log_at_trx_commit=2 lets a crash of the machine lose about the last second of"
                    + " commits");
        }
        String syncBinlog = settings.get("sync_binlog");
        if (TopologyProbe.on(settings.get("log_bin")) && syncBinlog != null && !"1".equals(syncBinlog)) {
            hazards.add("log_bin=ON with sync_binlog=" + syncBinlog + " lets a crash of the machine lose binary log"
                    + " entries, and the restarted server rolls back the commits whose entries are missing");
        }
        if (hazards.isEmpty()) {
            return null;
        }
        return "bizlock: " + String.join("; ", hazards) + ". A lock or fencing token granted in that time could be"
                + " granted again after the restart, while its holder from before the crash still acts on it. Set"
                + " innodb_flush_log_at_trx_commit=1 and, with binary logging on, sync_binlog=1 (the servers' defaults)"
                + " for locks and tokens that survive a crash.";
    }
}
