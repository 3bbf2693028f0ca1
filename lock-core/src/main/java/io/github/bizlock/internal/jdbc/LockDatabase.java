package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;
import javax.sql.DataSource;

/**
 * The lock database, as every DAO of its tables uses it: the server's {@link Dialect} (which names the lock table and
 * renders the statements) and the statement runner ({@link LockJdbc}) on the lock DataSource and the lock connections.
 * Built once; the DAOs built from it are peers ({@link LockDaos}).
 */
public final class LockDatabase {

    private final Dialect dialect;
    private final LockJdbc jdbc;

    /** With every statement on {@code dataSource}: lock writes borrow from its pool. */
    public LockDatabase(DataSource dataSource, Dialect dialect) {
        this(dataSource, dataSource, dialect);
    }

    /**
     * @param dataSource the lock DataSource: schema checks, housekeeping and the actuator's reads
     * @param lockConnections where lock writes (acquire, renew, release, fencing tokens) and the reads that decide
     *     whether a lock is held run, each on a connection of its own in autocommit: a small pool of bizlock's own with
     *     the lock DataSource's settings, so that an application holding all its connections cannot starve them
     * @param dialect the server's, detected from {@code dataSource}
     * @throws IllegalStateException if the server takes no writes (a replica)
     */
    public LockDatabase(DataSource dataSource, DataSource lockConnections, Dialect dialect) {
        dialect.topology().requireWritable();
        this.dialect = dialect;
        this.jdbc = new LockJdbc(dataSource, lockConnections, dialect);
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The lock table's name, checked to be a plain identifier; the other lock tables' names start with it. */
    public String table() {
        return dialect.table();
    }

    LockJdbc jdbc() {
        return jdbc;
    }
}
