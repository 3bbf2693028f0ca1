package io.github.bizlock.sample.inventory;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/inventory")
public class InventoryController {

    private final InventoryService inventory;

    public InventoryController(InventoryService inventory) {
        this.inventory = inventory;
    }

    @PutMapping("/{sku}")
    public StockReport reset(@PathVariable String sku, @RequestParam int stock) {
        inventory.reset(sku, stock);
        return inventory.report(sku);
    }

    @GetMapping("/{sku}")
    public StockReport report(@PathVariable String sku) {
        return inventory.report(sku);
    }

    @PostMapping("/{sku}/reserve")
    public ResponseEntity<Reservation> reserve(
            @PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return answer(inventory.reserve(sku, quantity));
    }

    @PostMapping("/{sku}/reserve-unprotected")
    public ResponseEntity<Reservation> reserveUnprotected(
            @PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return answer(inventory.reserveUnprotected(sku, quantity));
    }

    /** 200 with what was written, or 409 with why not: a newer lock holder wrote since this one's lease ran out. */
    @PostMapping("/{sku}/restock")
    public Restock restock(
            @PathVariable String sku,
            @RequestParam(defaultValue = "10") int quantity,
            @RequestParam(defaultValue = "0ms") String pause) {
        // e.g. pause=3s: stall between reading and writing, longer than the 2 s lease, to play a stale holder.
        return inventory.restock(sku, quantity, DurationStyle.detectAndParse(pause));
    }

    @ExceptionHandler
    public ResponseEntity<Restock> refused(StaleLockHolderException ex) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(ex.refused());
    }

    private static ResponseEntity<Reservation> answer(Reservation reservation) {
        return ResponseEntity.status(reservation.accepted() ? HttpStatus.OK : HttpStatus.CONFLICT)
                .body(reservation);
    }
}
