package shop;

public class Warehouse {
    private final Inventory inventory = new Inventory();

    public Warehouse() {
        inventory.restock("starter", 1);
    }

    void receive(String sku, int count) {
        // restock after a delivery
        inventory.restock(sku, count);
        if (inventory.available(sku) > 100) {
            System.out.println("full");
        }
    }
}
