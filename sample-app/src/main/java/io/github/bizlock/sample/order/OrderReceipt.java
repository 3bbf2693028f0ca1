package io.github.bizlock.sample.order;

/**
 * The answer to a submit.
 *
 * @param orderId the order's id
 * @param created whether this call created it (false: an earlier submit with the same request id did)
 */
public record OrderReceipt(long orderId, boolean created) {}
