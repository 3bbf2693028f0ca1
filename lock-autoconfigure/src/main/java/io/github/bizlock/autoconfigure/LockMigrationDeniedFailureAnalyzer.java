package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockTables;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a migration the server refused for lack of rights: the user, the GRANT to run, or the DDL to run instead. */
class LockMigrationDeniedFailureAnalyzer extends AbstractFailureAnalyzer<LockMigrationDeniedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockMigrationDeniedException cause) {
        return new FailureAnalysis(
                "bizlock could not create its tables in database " + cause.schema() + ": the lock DataSource's user "
                        + cause.user() + " may not create tables or indexes there (" + cause.reason() + ").",
                "Either let bizlock create and upgrade its tables: as an administrator, run\n\n    "
                        + LockMigrationDeniedException.grant(cause.schema(), cause.user())
                        + "\n\nor set bizlock.migration.enabled=false and have an administrator create the tables"
                        + " (the user then needs only SELECT, INSERT, UPDATE and DELETE on them), with these"
                        + " statements (those of migrations not applied yet, when upgrading):\n\n"
                        + LockTables.ddl(cause.table()),
                cause);
    }
}
