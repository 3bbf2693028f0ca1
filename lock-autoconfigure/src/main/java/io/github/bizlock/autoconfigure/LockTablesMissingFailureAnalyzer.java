package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockTables;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports lock tables missing at start-up: which ones, where, and the DDL that creates them. */
class LockTablesMissingFailureAnalyzer extends AbstractFailureAnalyzer<LockTablesMissingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockTablesMissingException cause) {
        String tables = String.join(", ", cause.missing());
        String historyTable = BizLockSchemaInitializer.historyTable(cause.table());
        String description = cause.migrationEnabled()
                ? "The bizlock tables " + tables + " are missing from database " + cause.schema() + ", although "
                        + historyTable + " records bizlock's migrations as applied: the tables were dropped after"
                        + " they were created."
                : "The bizlock tables " + tables + " are missing from database " + cause.schema()
                        + ", and bizlock.migration.enabled=false keeps bizlock from creating them.";
        String action = cause.migrationEnabled()
                ? "Drop " + historyTable + " to have bizlock create the tables at the next start, or run the"
                        + " statements below that create the missing ones:\n\n"
                : "Set bizlock.migration.enabled=true (the default) to have bizlock create the tables at start-up,"
                        + " or run the statements below that create the missing ones (all of them, on an empty"
                        + " schema):\n\n";
        return new FailureAnalysis(description, action + LockTables.ddl(cause.table()), cause);
    }
}
