"""Shopping cart: add_item puts an item in the cart."""

TAX_RATE = 0.2


class Cart:
    def __init__(self):
        self.items = []

    def add_item(self, item, count=1):
        # add_item appends count copies
        for _ in range(count):
            self.items.append(item)

    def total(self):
        return sum(price_of(i) for i in self.items) * (1 + TAX_RATE)


def price_of(item):
    return item.price
