package io.github.bizlock.sample.inventory;

/**
 * What a restock did: {@code POST /inventory/{sku}/restock} answers it, with 200 when it wrote and 409 when the fencing
 * token refused its write.
 *
 * @param sku the SKU
 * @param written whether the stock was raised
 * @param stock the stock after the restock (or, refused, the stock the newer holder left)
 * @param fencingToken the token of this restock's lock, written with the stock
 * @param detail what happened, in words: why a refused write was refused
 */
public record Restock(String sku, boolean written, int stock, long fencingToken, String detail) {}
