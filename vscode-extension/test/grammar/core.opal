# SYNTAX TEST "source.opal" "core notation and printed running terms: primitives, tasks, labels, fresh names"
y := <"Oceania">
#    ^ punctuation.definition.primitive.begin.opal
#     ^^^^^^^^^ string.quoted.double.opal
#              ^ punctuation.definition.primitive.end.opal
n := <-1.5>
#     ^^^^ meta.primitive.opal constant.numeric.opal
print := <print>
#         ^^^^^ meta.primitive.opal support.function.external.opal
lt := a<b
#      ^ keyword.operator.comparison.opal
2.1  rest@2 := <<cf "foo">>
# <--- entity.name.tag.label.opal
#    ^^^^^^ variable.other.opal
#              ^^ punctuation.definition.task.begin.opal
#                ^^ meta.task.opal support.function.external.opal
#                   ^^^^^ meta.task.opal string.quoted.double.opal
#                        ^^ punctuation.definition.task.end.opal
2.2  list@2 := fun p:
# <--- entity.name.tag.label.opal
#    ^^^^^^ entity.name.function.opal
       state'1 := append t'1
#      ^^^^^^^ variable.other.opal
#                 ^^^^^^ entity.name.function.call.opal
#                        ^^^ variable.other.opal
       ret state'2
#      ^^^ keyword.control.opal
12   stdout'1 := print t'97
# <-- entity.name.tag.label.opal
#    ^^^^^^^^ variable.language.handle.opal
#                ^^^^^ support.function.external.opal
