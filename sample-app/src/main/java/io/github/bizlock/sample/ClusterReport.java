package io.github.bizlock.sample;

import io.github.bizlock.sample.inventory.StockReport;

/**
 * Everything the demo checks, in one answer.
 *
 * @param stock what happened to the SKU asked for
 * @param duplicateOrders request ids with more than one order (0 is right)
 * @param seedRuns how often the reference data was seeded (1 is right)
 * @param maxJobRunsPerTick the most runs one tick of the scheduled job had (1 is right)
 * @param jobTicks how many ticks of the scheduled job ran
 * @param answeredBy the replica that answered
 */
public record ClusterReport(
        StockReport stock, int duplicateOrders, int seedRuns, int maxJobRunsPerTick, int jobTicks, String answeredBy) {}
