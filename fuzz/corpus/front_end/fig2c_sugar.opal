# Fig. 2(c): the motivating example in sugared form.
extern get_cities_in, get_excursions_in
cities := get_cities_in <"Oceania">
for_body := fun (stdout, city):
    excursion := get_excursions_in (city)
    stdout := print (stdout, excursion)
    stdout
stdout := fold (cities, stdout, for_body)
()
