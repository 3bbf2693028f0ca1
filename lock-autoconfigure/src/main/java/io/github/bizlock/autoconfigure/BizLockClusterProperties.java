package io.github.bizlock.autoconfigure;

/** How the lock database is deployed, where bizlock cannot tell by itself. */
public class BizLockClusterProperties {

    /**
     * Whether every instance sends all its lock traffic to one node of a multi-writer cluster (Galera, Percona XtraDB
     * Cluster, multi-primary Group Replication), which lets ROW and NAMED locks, refused there otherwise since they lock
     * one node only, run on it.
     */
    private boolean singleWriter = false;

    public boolean isSingleWriter() {
        return singleWriter;
    }

    public void setSingleWriter(boolean singleWriter) {
        this.singleWriter = singleWriter;
    }
}
