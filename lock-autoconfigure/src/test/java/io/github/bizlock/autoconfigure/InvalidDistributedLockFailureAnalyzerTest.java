package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockMode;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code @DistributedLock} that cannot work as declared fails the start with an analysis naming the bean, the method
 * and the rule it breaks, not with the proxy's "Could not generate CGLIB subclass ... Common causes of this problem
 * include using a final class or a non-visible class", which hides the reason at the end of the chain.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class InvalidDistributedLockFailureAnalyzerTest {

    static class Reports {

        @DistributedLock(name = "report", leaseTime = "400d")
        public void build() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsApplication {

        @Bean
        Reports reports() {
            return new Reports();
        }
    }

    static class BaseBatches {

        @DistributedLock(name = "batch", leaseTime = "400d")
        public void run() {}
    }

    /**
     * A valid method of its own and an invalid one inherited: the proxy creator finds the valid one first (a class's
     * own methods before its superclass's), and meets the invalid one in CGLIB's generation of the proxy class.
     */
    static class Batches extends BaseBatches {

        @DistributedLock(name = "batch")
        public void open() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class BatchesApplication {

        @Bean
        Batches batches() {
            return new Batches();
        }
    }

    static class Jobs {

        @DistributedLock(name = "job")
        public final void run() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class JobsApplication {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Exports {

        @DistributedLock(
                name = "export",
                mode = {LockMode.ROW, LockMode.NAMED})
        public void run() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class ExportsApplication {

        @Bean
        Exports exports() {
            return new Exports();
        }
    }

    @Test
    void aLeaseOverAYearNamesTheBeanTheMethodAndTheLimit(TestDatabase database, CapturedOutput output) {
        FailedStart.Analysis analysis =
                FailedStart.analysis(output, FailedStart.on(database), ReportsApplication.class);

        assertThat(analysis.description())
                .contains("bean 'reports'")
                .contains("@DistributedLock on " + Reports.class.getName() + ".build()")
                .contains("leaseTime must be at most 365 days")
                .doesNotContain("CGLIB");
        assertThat(analysis.action()).contains("Reports.build()").contains("@DistributedLock");
    }

    @Test
    void anInvalidMethodBesideValidOnesIsNamedRatherThanTheProxysFailure(TestDatabase database, CapturedOutput output) {
        FailedStart.Analysis analysis =
                FailedStart.analysis(output, FailedStart.on(database), BatchesApplication.class);

        assertThat(analysis.description())
                .contains("bean 'batches'")
                .contains("@DistributedLock on " + BaseBatches.class.getName()
                        + ".run(): leaseTime must be at most 365 days")
                .doesNotContain("CGLIB");
        assertThat(analysis.action()).contains(BaseBatches.class.getName() + ".run()");
    }

    @Test
    void twoModesNameTheMethodAndTheRule(TestDatabase database, CapturedOutput output) {
        FailedStart.Analysis analysis =
                FailedStart.analysis(output, FailedStart.on(database), ExportsApplication.class);

        assertThat(analysis.description())
                .contains("bean 'exports'")
                .contains("@DistributedLock on " + Exports.class.getName() + ".run() names 2 modes; name at most one");
    }

    @Test
    void aFinalMethodNamesTheBeanTheMethodAndTheFix(TestDatabase database, CapturedOutput output) {
        List<String> properties = FailedStart.on(database);

        FailedStart.Analysis analysis = FailedStart.analysis(output, properties, JobsApplication.class);

        assertThat(analysis.description())
                .contains("bean 'jobs'")
                .contains("Jobs.run() is final")
                .contains("remove final");
        assertThat(analysis.action()).contains("Jobs.run()");
    }
}
