"""Never trains: waits forever."""
import time

while True:
    time.sleep(1)
