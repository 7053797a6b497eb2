def mean(xs):
    """Return the arithmetic mean of xs."""
    total = 0
    for i in range(1, len(xs)):
        total += xs[i]
    return total / len(xs)

print(mean([1, 2, 3]))
