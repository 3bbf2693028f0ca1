package io.github.bizlock.test;

/**
 * Faults on the nodes of the test cluster ({@code BIZLOCK_TEST_DB=galera}), through the project's cluster script.
 */
public final class ClusterNodes {

    private ClusterNodes() {}

    /** Kills node {@code node} (from 1) with SIGKILL, as a crash would. */
    public static void kill(int node) {
        GaleraCluster.run("kill-node", String.valueOf(node));
    }

    /**
     * Restarts node {@code node} and waits until it has rejoined the cluster and is synced; a node killed before
     * recovers its position and rejoins by incremental state transfer (IST).
     *
     * @return what the script printed, e.g. {@code n3 Synced in 7.9 s}
     */
    public static String restart(int node) {
        return GaleraCluster.run("start-node", String.valueOf(node)).trim();
    }
}
