# SYNTAX TEST "source.opal" "OPAL sugar: bindings, functions, control flow, operators, handles"
extern get_cities_in, get_excursions_in
# <----- storage.type.extern.opal
#      ^^^^^^^^^^^^^ entity.name.function.external.opal
#                   ^ punctuation.separator.comma.opal
#                     ^^^^^^^^^^^^^^^^^ entity.name.function.external.opal
rec fact := fun n:
# <--- storage.modifier.rec.opal
#   ^^^^ entity.name.function.opal
#        ^^ keyword.operator.assignment.opal
#           ^^^ storage.type.function.opal
    if n <= 1:
#   ^^ keyword.control.opal
#        ^^ keyword.operator.comparison.opal
#           ^ constant.numeric.integer.opal
        ret 1
#       ^^^ keyword.control.opal
    ret n * fact (n - 1)
#         ^ keyword.operator.arithmetic.opal
#           ^^^^ entity.name.function.call.opal
#                   ^ keyword.operator.arithmetic.opal
total := 0
for (city, n) in zip cities:
# <--- keyword.control.opal
#   ^ punctuation.brackets.round.opal
#    ^^^^ variable.other.opal
#             ^^ keyword.control.opal
#                ^^^ support.function.external.opal
    total += n
#         ^^ keyword.operator.assignment.opal
    print (&stdout, city ++ "\n")
#   ^^^^^ support.function.external.opal
#          ^ keyword.operator.thread.opal
#           ^^^^^^ variable.parameter.handle.opal
#                        ^^ keyword.operator.concat.opal
#                           ^ punctuation.definition.string.begin.opal
#                            ^^ constant.character.escape.opal
while not done and x != 2.5e3:
# <----- keyword.control.opal
#     ^^^ keyword.operator.logical.opal
#              ^^^ keyword.operator.logical.opal
#                    ^^ keyword.operator.comparison.opal
#                       ^^^^^ constant.numeric.float.opal
    done := true
#           ^^^^ constant.language.boolean.opal
xs := map ([1, 2, 3], fun x: x * 2)
#     ^^^ support.function.prelude.opal
#          ^ punctuation.brackets.square.opal
#                     ^^^ storage.type.function.opal
p := prj 2 pair # the second
#    ^^^ keyword.operator.projection.opal
#               ^^^^^^^^^^^^ comment.line.number-sign.opal
s := "unterminated
#    ^^^^^^^^^^^^^ string.quoted.double.opal
ok := 1
# <-- variable.other.opal
#  ^^ keyword.operator.assignment.opal
x = 3
# ^ invalid.illegal.assignment.opal
break
# <----- invalid.illegal.keyword.opal
f ()
# <- entity.name.function.call.opal
extern sequential write, log
# <----- storage.type.extern.opal
#      ^^^^^^^^^^ storage.modifier.order.opal
#                 ^^^^^ entity.name.function.external.opal
msg := f"{n}: {name}"
#      ^ storage.type.string.opal
#       ^ punctuation.definition.string.begin.opal
#        ^ punctuation.section.embedded.begin.opal
#         ^ variable.other.opal
#          ^ punctuation.section.embedded.end.opal
#           ^^ string.interpolated.opal
