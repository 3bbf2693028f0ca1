package io.github.bizlock.sample.inventory;

/**
 * A guarded write carried an older fencing token than the last write: its holder's lease had run out, and a newer
 * holder wrote since. {@code InventoryController} answers it with 409 and a {@link Restock} that says so.
 */
public class StaleLockHolderException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Restock refused;

    public StaleLockHolderException(String sku, long token, long lastToken, int stock) {
        this(new Restock(sku, false, stock, token, why(sku, token, lastToken)));
    }

    private StaleLockHolderException(Restock refused) {
        super(refused.detail());
        this.refused = refused;
    }

    private static String why(String sku, long token, long lastToken) {
        return "Refused the write to " + sku + " with fencing token " + token + ": the stock was last written with"
                + " token " + lastToken + ", by a newer lock holder. This holder's lease ran out while it paused, so"
                + " its lock was no longer exclusive, and its write would have undone the newer one";
    }

    /** The answer to the refused restock. */
    public Restock refused() {
        return refused;
    }
}
