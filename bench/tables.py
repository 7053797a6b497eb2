"""Markdown cells and tables shared by every benchmark's ``markdown`` and by the report."""


def table(headers: list[str], rows: list[list]) -> str:
    """A Markdown table; floats get 3 significant digits unless already strings."""

    def cell(value) -> str:
        if isinstance(value, float):
            return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
        return "" if value is None else str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def times(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}×"
