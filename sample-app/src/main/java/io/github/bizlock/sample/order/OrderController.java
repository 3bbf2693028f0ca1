package io.github.bizlock.sample.order;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/orders")
public class OrderController {

    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    public OrderReceipt submit(@RequestBody OrderRequest request) {
        return orders.submit(request);
    }

    @PostMapping("/unprotected")
    public OrderReceipt submitUnprotected(@RequestBody OrderRequest request) {
        return orders.submitUnprotected(request);
    }

    /** Orders beyond the first for the request ids that start with {@code prefix}: double submits that got through. */
    @GetMapping("/extra")
    public int extra(@RequestParam String prefix) {
        return orders.extraOrders(prefix);
    }

    @GetMapping("/count/{requestId}")
    public int count(@PathVariable String requestId) {
        return orders.countOrders(requestId);
    }
}
