package io.github.bizlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Reports a bad {@code bizlock.*} property: its name, its value, what is wrong and what to set. Ordered first, because a
 * value refused by a setter also reaches Spring Boot's generic analyzer of binding failures, whose action is only
 * "Update your application's configuration".
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class BizLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<BizLockPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BizLockPropertyException cause) {
        return new FailureAnalysis(
                "The property " + cause.property() + " is " + cause.value() + ", but " + cause.problem() + ".",
                cause.fix() + ".",
                cause);
    }
}
