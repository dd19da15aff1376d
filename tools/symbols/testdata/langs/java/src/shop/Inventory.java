package shop;

import java.util.HashMap;
import java.util.Map;

/** Inventory keeps stock counts; see restock. */
public class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();

    public void restock(String sku, int count) throws IllegalArgumentException {
        if (count < 0) {
            throw new IllegalArgumentException("restock needs a positive count");
        }
        stock.merge(sku, count, Integer::sum);
    }

    public int available(String sku) {
        return stock.getOrDefault(sku, 0);
    }
}
