package io.github.bizlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a lock database that did not answer at start-up: where bizlock tried, what the driver said, what to check. */
class LockDatabaseUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<LockDatabaseUnreachableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockDatabaseUnreachableException cause) {
        String where = cause.url() != null ? " at " + cause.url() : "";
        return new FailureAnalysis(
                "bizlock could not connect to the lock database" + where + ": " + cause.reason()
                        + "\n\nbizlock connects at start-up to detect the server and to create or check its tables.",
                "Make sure the database is running and reachable from this host, and that the lock DataSource's URL"
                        + " and credentials are right: spring.datasource.url, spring.datasource.username and"
                        + " spring.datasource.password, or those of the DataSource bean named by bizlock.datasource."
                        + " To start without bizlock's locks, set bizlock.enabled=false.",
                cause);
    }
}
