package io.github.bizlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a lock database that did not answer at start-up with {@code bizlock.fail-fast=true}: where bizlock tried,
 * what the driver said, what to check.
 */
class LockDatabaseUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<LockDatabaseUnreachableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockDatabaseUnreachableException cause) {
        String where = cause.url() != null ? " at " + cause.url() : "";
        return new FailureAnalysis(
                "bizlock could not connect to the lock database" + where + ": " + cause.reason()
                        + "\n\nbizlock connects at start-up to detect the server and to create or check its tables,"
                        + " and bizlock.fail-fast=true makes the start fail when it cannot.",
                "Make sure " + LockDatabaseUnreachableException.WHAT_TO_CHECK + ". To start while the database does"
                        + " not answer (locks then fail until it does), set bizlock.fail-fast=false; to start without"
                        + " bizlock's locks, bizlock.enabled=false.",
                cause);
    }
}
