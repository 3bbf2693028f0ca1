package io.github.bizlock.sample.transfer;

import java.util.List;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class TransferController {

    private final TransferService transfers;
    private final TransferStorms storms;

    public TransferController(TransferService transfers, TransferStorms storms) {
        this.transfers = transfers;
        this.storms = storms;
    }

    @PutMapping("/accounts/{id}")
    public TransferReport open(@PathVariable String id, @RequestParam long balance) {
        transfers.open(id, balance);
        return transfers.report(List.of(id));
    }

    @PostMapping("/transfers")
    public Transfer transfer(@RequestParam String from, @RequestParam String to, @RequestParam long amount) {
        return transfers.transfer(from, to, amount);
    }

    /** Many transfers at once in both directions: the answer shows none failed and the money is all there. */
    @PostMapping("/transfers/storm")
    public TransferStorm storm(
            @RequestParam String from, @RequestParam String to, @RequestParam(defaultValue = "100") int count)
            throws InterruptedException {
        return storms.run(from, to, count);
    }

    @GetMapping("/transfers/report")
    public TransferReport report(@RequestParam List<String> accounts) {
        return transfers.report(accounts);
    }

    @ExceptionHandler
    public ResponseEntity<String> badRequest(IllegalArgumentException ex) {
        return ResponseEntity.badRequest().body(ex.getMessage());
    }

    @ExceptionHandler
    public ResponseEntity<String> unknownAccount(EmptyResultDataAccessException ex) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body("No such account; open it with PUT /accounts/{id}");
    }
}
