package io.github.bizlock.sample;

import io.github.bizlock.sample.inventory.InventoryService;
import io.github.bizlock.sample.job.InventoryReportJob;
import io.github.bizlock.sample.order.OrderService;
import io.github.bizlock.sample.reference.ReferenceDataSeeder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ClusterReportController {

    private final InventoryService inventory;
    private final OrderService orders;
    private final ReferenceDataSeeder seeder;
    private final InventoryReportJob job;
    private final SampleInstance instance;

    public ClusterReportController(
            InventoryService inventory,
            OrderService orders,
            ReferenceDataSeeder seeder,
            InventoryReportJob job,
            SampleInstance instance) {
        this.inventory = inventory;
        this.orders = orders;
        this.seeder = seeder;
        this.job = job;
        this.instance = instance;
    }

    @GetMapping("/report")
    public ClusterReport report(@RequestParam String sku) {
        return new ClusterReport(
                inventory.report(sku),
                orders.duplicateRequests(),
                seeder.seedRuns(),
                job.maxRunsPerTick(),
                job.ticksRun(),
                instance.name());
    }
}
