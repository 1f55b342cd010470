# tests/python/city_excursions.py written by hand with asyncio: an excursion task starts as
# each city arrives, and the results print in the cities' order.
import asyncio

EXCURSIONS = {
    "Honolulu": "Located in the US state of Hawaii: surf at Waikiki.",
    "Jakarta": "In Jakarta, you can find the National Monument.",
}


async def get_cities_in(region):
    for city in ["Honolulu", "Jakarta", "Auckland", "Suva"]:
        await asyncio.sleep(0.01)
        yield city


async def get_excursions_in(city):
    await asyncio.sleep(0.04)
    return EXCURSIONS.get(city, "Walk around.")


async def main():
    tasks = []
    async for city in get_cities_in("Oceania"):
        tasks.append((city, asyncio.create_task(get_excursions_in(city))))
    for city, task in tasks:
        print(city)
        print(await task)


asyncio.run(main())
