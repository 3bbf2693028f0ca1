package io.github.bizlock.sample.inventory;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** A guarded write carried an older fencing token than the last write: its holder's lease had run out. */
@ResponseStatus(HttpStatus.CONFLICT)
public class StaleLockHolderException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StaleLockHolderException(String sku, long token) {
        super("Refused the write to " + sku + " with fencing token " + token
                + ": a newer lock holder has written since this holder's lease ran out");
    }
}
