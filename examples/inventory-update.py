# ... existing code ...
@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0
    sku: str = ""
# ... existing code ...
