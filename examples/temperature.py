def to_fahrenheit(celsius):
    fahrenheit = celsius * 9 / 5 + 32
    return fahrenheit


def to_celsius(fahrenheit):
    return (fahrenheit - 32) * 5 / 9
