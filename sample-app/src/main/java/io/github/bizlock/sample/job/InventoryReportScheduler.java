package io.github.bizlock.sample.job;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Fires the job on every replica; the job's lock decides which one runs it. */
@Component
class InventoryReportScheduler {

    private final InventoryReportJob job;

    InventoryReportScheduler(InventoryReportJob job) {
        this.job = job;
    }

    @Scheduled(fixedRateString = "${sample.job.period:10s}")
    void tick() {
        job.runTick();
    }
}
