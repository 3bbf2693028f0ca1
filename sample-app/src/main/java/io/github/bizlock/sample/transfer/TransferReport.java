package io.github.bizlock.sample.transfer;

import java.util.Map;

/**
 * The money in some accounts.
 *
 * @param balances each account's balance
 * @param opening what the accounts held when they were opened or reset
 * @param total what they hold now
 * @param conserved whether no money appeared or vanished ({@code total == opening}; true is right)
 * @param transfers transfers booked between them since
 */
public record TransferReport(Map<String, Long> balances, long opening, long total, boolean conserved, int transfers) {}
