# Fig. 2(b): the motivating example in the core notation of λ^O.
extern get_cities_in, get_excursions_in
x0 := <"Oceania">
cities := get_cities_in x0
for_body := fun x1:
    stdout1 := prj 1 x1
    city := prj 2 x1
    excursion := get_excursions_in city
    x2 := (stdout1, excursion)
    stdout2 := print x2
    ret stdout2
x3 := (cities, stdout, for_body)
stdout3 := fold x3
x4 := ()
ret x4
