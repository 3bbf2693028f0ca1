package io.github.bizlock.sample.transfer;

/**
 * What one transfer did.
 *
 * @param booked whether the money moved (false: not enough on the source account)
 * @param fromBalance the source account's balance after it
 * @param toBalance the target account's balance after it
 * @param bookedBy the replica that answered
 */
public record Transfer(boolean booked, long fromBalance, long toBalance, String bookedBy) {}
