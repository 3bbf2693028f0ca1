package io.github.bizlock.sample.inventory;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

@ResponseStatus(HttpStatus.NOT_FOUND)
public class UnknownSkuException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UnknownSkuException(String sku) {
        super("No inventory for SKU " + sku + "; create it with PUT /inventory/" + sku + "?stock=50");
    }
}
