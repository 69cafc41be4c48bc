def done():
    print("helper reached")
