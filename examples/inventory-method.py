def remove(self, name: str, quantity: int = 1) -> None:
    item = self.items.get(name)
    if item is None:
        raise KeyError(f"no item named {name!r}")
    item.quantity -= quantity
    if item.quantity <= 0:
        del self.items[name]
