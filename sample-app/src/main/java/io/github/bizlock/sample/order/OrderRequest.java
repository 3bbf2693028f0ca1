package io.github.bizlock.sample.order;

/**
 * An order as the client submits it.
 *
 * @param requestId chosen by the client once per order and sent again on every retry or double click
 * @param sku what is ordered
 * @param quantity how many
 */
public record OrderRequest(String requestId, String sku, int quantity) {}
