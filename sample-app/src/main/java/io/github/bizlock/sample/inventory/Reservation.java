package io.github.bizlock.sample.inventory;

/**
 * The outcome of a reservation.
 *
 * @param accepted whether stock was reserved
 * @param stockLeft the stock this request saw after its own change
 */
public record Reservation(boolean accepted, int stockLeft) {}
