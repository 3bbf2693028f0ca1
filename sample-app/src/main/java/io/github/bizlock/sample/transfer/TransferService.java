package io.github.bizlock.sample.transfer;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.sample.SampleInstance;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class TransferService {

    private final JdbcTemplate jdbc;
    private final SampleInstance instance;

    public TransferService(JdbcTemplate jdbc, SampleInstance instance) {
        this.jdbc = jdbc;
        this.instance = instance;
    }

    /** Opens an account, or resets it, with a balance; forgets the transfers it took part in. */
    @Transactional
    public void open(String account, long balance) {
        jdbc.update("DELETE FROM transfers WHERE from_id = ? OR to_id = ?", account, account);
        jdbc.update(
                "INSERT INTO accounts (id, opening, balance) VALUES (?, ?, ?)"
                        + " ON DUPLICATE KEY UPDATE opening = VALUES(opening), balance = VALUES(balance)",
                account,
                balance,
                balance);
    }

    /**
     * Moves money between two accounts holding both of their locks, taken together: a transfer from A to B and one from
     * B to A ask for the same two keys in opposite orders, and the multi-key lock takes them in one order, so they never
     * deadlock, on one replica or across replicas.
     */
    @DistributedLock(
            name = "account",
            keys = {"#from", "#to"},
            waitTime = "30s")
    @Transactional
    public Transfer transfer(String from, String to, long amount) {
        if (from.equals(to) || amount <= 0) {
            throw new IllegalArgumentException("A transfer needs two different accounts and a positive amount, was "
                    + from + " -> " + to + ", " + amount);
        }
        long fromBalance = balance(from);
        long toBalance = balance(to);
        if (fromBalance < amount) {
            return new Transfer(false, fromBalance, toBalance, instance.name());
        }
        instance.simulateWork();
        jdbc.update("UPDATE accounts SET balance = ? WHERE id = ?", fromBalance - amount, from);
        jdbc.update("UPDATE accounts SET balance = ? WHERE id = ?", toBalance + amount, to);
        jdbc.update(
                "INSERT INTO transfers (from_id, to_id, amount, booked_by) VALUES (?, ?, ?, ?)",
                from,
                to,
                amount,
                instance.name());
        return new Transfer(true, fromBalance - amount, toBalance + amount, instance.name());
    }

    /** The accounts' balances, and whether the money in them is what they were opened with. */
    public TransferReport report(List<String> accounts) {
        Map<String, Long> balances = new LinkedHashMap<>();
        long opening = 0;
        long total = 0;
        for (String account : accounts) {
            long[] row = jdbc.queryForObject(
                    "SELECT opening, balance FROM accounts WHERE id = ?",
                    (rs, n) -> new long[] {rs.getLong(1), rs.getLong(2)},
                    account);
            balances.put(account, row[1]);
            opening += row[0];
            total += row[1];
        }
        String in = String.join(",", Collections.nCopies(accounts.size(), "?"));
        Object[] twice = Stream.concat(accounts.stream(), accounts.stream()).toArray();
        Integer transfers = jdbc.queryForObject(
                "SELECT COUNT(*) FROM transfers WHERE from_id IN (" + in + ") AND to_id IN (" + in + ")",
                Integer.class,
                twice);
        return new TransferReport(balances, opening, total, total == opening, transfers == null ? 0 : transfers);
    }

    private long balance(String account) {
        Long balance = jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, account);
        return balance == null ? 0 : balance;
    }
}
