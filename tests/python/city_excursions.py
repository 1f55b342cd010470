# The OPAL paper's motivating example (Fig. 1, §2) in Python: the cities arrive as a stream
# (an async generator), and an excursion call starts for each city as soon as it arrives.
import asyncio

from opal import unordered

EXCURSIONS = {
    "Honolulu": "Located in the US state of Hawaii: surf at Waikiki.",
    "Jakarta": "In Jakarta, you can find the National Monument.",
}


@unordered
async def get_cities_in(region):
    for city in ["Honolulu", "Jakarta", "Auckland", "Suva"]:
        await asyncio.sleep(0.01)
        yield city


@unordered
async def get_excursions_in(city):
    await asyncio.sleep(0.04)
    return EXCURSIONS.get(city, "Walk around.")


for city in get_cities_in("Oceania"):
    print(city)
    excursions = get_excursions_in(city)
    print(excursions)
