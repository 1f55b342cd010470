# The paper's motivating example (Fig. 1, §2): find cities, then excursions in each.
# With opportunistic evaluation the excursion calls run in parallel and start while
# the city list is still streaming.
extern get_cities_in, get_excursions_in

for city in get_cities_in "Oceania":
    print (&stdout, city)
    excursions := get_excursions_in city
    print (&stdout, excursions)
