package io.github.bizlock.sample.inventory;

/**
 * What happened to one SKU.
 *
 * @param sku the SKU
 * @param initialStock the stock it was reset to
 * @param restocked units restocks added since
 * @param stockLeft the stock the table holds now
 * @param reserved units in accepted reservations
 * @param oversold units reserved beyond the initial stock and the restocks (0 is right)
 */
public record StockReport(String sku, int initialStock, int restocked, int stockLeft, int reserved, int oversold) {}
