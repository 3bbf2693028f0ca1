package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;

/** What the advisor tells an auto-proxy creator: which beans it applies to, and in which order. */
class DistributedLockAdvisorTest {

    private final DistributedLockAdvisor advisor = new DistributedLockAdvisor(
            () -> {
                throw new IllegalStateException("no lock is taken");
            },
            null,
            42);

    static class Reports {

        @DistributedLock(name = "report")
        public void build() {}

        public void describe() {}
    }

    static class Plain {

        public void run() {}
    }

    @Test
    void appliesToBeansWithLockedMethodsOnly() throws Exception {
        assertThat(AopUtils.canApply(advisor, Reports.class)).isTrue();
        assertThat(AopUtils.canApply(advisor, Plain.class))
                .as("a bean without locked methods is not proxied")
                .isFalse();
        assertThat(advisor.getPointcut().getMethodMatcher().matches(Reports.class.getMethod("describe"), Reports.class))
                .isFalse();
    }

    @Test
    void takesTheOrderItIsGiven() {
        assertThat(advisor.getOrder()).isEqualTo(42);
    }
}
