package io.github.bizlock.aop.elsewhere;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;

/** A bean class outside bizlock's packages whose fallback only its own package can call. */
public class Shipments {

    @DistributedLock(name = "shipment", key = "#p0", onFailure = OnFailure.FALLBACK, fallback = "later")
    public String ship(String id) {
        return "shipped " + id;
    }

    String later(String id) {
        return "later " + id;
    }
}
