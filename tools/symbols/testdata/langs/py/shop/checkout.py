from shop.cart import Cart, price_of


def checkout(items):
    cart = Cart()
    for item in items:
        cart.add_item(item)
    message = "calling add_item done"
    return cart.total(), message


def cheapest(items):
    return min(items, key=price_of)
