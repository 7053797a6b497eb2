"""A small inventory of items with quantities and prices."""

from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0


@dataclass
class Inventory:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, name: str, price: float, quantity: int = 1) -> Item:
        item = self.items.get(name)
        if item is None:
            item = self.items[name] = Item(name, price)
        item.quantity += quantity
        return item

    def remove(self, name: str, quantity: int = 1) -> None:
        item = self.items[name]
        item.quantity -= quantity
        if item.quantity <= 0:
            del self.items[name]

    def total_value(self) -> float:
        return sum(item.price * item.quantity for item in self.items.values())


def cheapest(inventory: Inventory) -> Item | None:
    return min(inventory.items.values(), key=lambda item: item.price, default=None)
