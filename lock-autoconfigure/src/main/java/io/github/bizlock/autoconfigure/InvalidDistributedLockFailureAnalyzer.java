package io.github.bizlock.autoconfigure;

import io.github.bizlock.aop.InvalidDistributedLockException;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@code @DistributedLock} that cannot work as declared: the bean, each method and the rule it breaks. The
 * refusal surfaces wherever the proxy is made, e.g. inside "Could not generate CGLIB subclass ... Common causes of this
 * problem include using a final class or a non-visible class", which names neither.
 */
class InvalidDistributedLockFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDistributedLockException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDistributedLockException cause) {
        String bean = beanName(rootFailure, cause);
        return new FailureAnalysis(
                (bean == null ? "A bean" : "The bean '" + bean + "'")
                        + " could not be created, because bizlock refuses a @DistributedLock that cannot work as"
                        + " declared: " + cause.getMessage() + ".",
                "Correct the @DistributedLock declaration of " + String.join(", ", cause.methods())
                        + " as described above. bizlock checks every @DistributedLock method when its bean is"
                        + " created, so that none runs without the lock it declares.",
                cause);
    }

    /** The bean whose creation failed: the innermost bean creation failure above the refusal. */
    private static @Nullable String beanName(Throwable failure, Throwable refusal) {
        String bean = null;
        for (Throwable cause = failure; cause != null && cause != refusal; cause = cause.getCause()) {
            if (cause instanceof BeanCreationException creation && creation.getBeanName() != null) {
                bean = creation.getBeanName();
            }
        }
        return bean;
    }
}
