package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The DAOs of the lock tables, peers built once from one {@link LockDatabase}, so that whoever assembles the library
 * hands each engine only those it uses: the LEASE engine {@link #leases()}, the ROW and NAMED engines {@link #tokens()}
 * (and NAMED the {@link #schema()}'s name), the lock manager {@link #modes()}, the housekeeper {@link #housekeeping()},
 * the schema migration {@link #migrationLease()}.
 */
public record LockDaos(
        LockDatabase database,
        LeaseDao leases,
        TokenIssuer tokens,
        ModeBindingDao modes,
        LockSchema schema,
        HousekeepingDao housekeeping,
        MigrationLease migrationLease) {

    /** The DAOs of a lock database whose statements all run on {@code dataSource}. */
    public static LockDaos of(DataSource dataSource, PlatformTransactionManager transactionManager, Dialect dialect) {
        return of(new LockDatabase(dataSource, dialect), transactionManager);
    }

    /**
     * The DAOs of a lock database.
     *
     * @param transactionManager for housekeeping's transactions on the lock DataSource
     */
    public static LockDaos of(LockDatabase database, PlatformTransactionManager transactionManager) {
        return new LockDaos(
                database,
                new LeaseDao(database),
                new TokenIssuer(database),
                new ModeBindingDao(database),
                new LockSchema(database),
                new HousekeepingDao(database, transactionManager),
                new MigrationLease(database));
    }

    public Dialect dialect() {
        return database.dialect();
    }

    /** The lock table's name. */
    public String table() {
        return database.table();
    }
}
