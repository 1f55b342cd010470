# A tour of what the language server knows.
extern get_cities_in, get_excursions_in

# Adds an exclamation mark.
shout := fun (text, mark): text + mark
cities := get_cities_in "Oceania"
count := 0
for city in cities:
    excursion := get_excursions_in city
    print (&stdout, shout (excursion, "!"))
    count += 1
lengths := map (cities, fun c: len c)
if count > 2:
    print (&stdout, "many")
print (&stdout, count)
