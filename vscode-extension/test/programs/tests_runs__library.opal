# The library and syntax a Python user reaches for, all desugared to λ^O.
nums := [5, 3, 8, 1]
print (len nums, sum nums, max nums, min nums)
print (sorted nums, reversed nums)
print (nums[0], nums[-1], 8 in nums, 7 not in nums)
for (i, x) in enumerate ["a", "b"]:
    print f"{i}: {x}"
print (zip ([1, 2, 3], ["x", "y"]))
print (range 4)
print (range (2, 5))
words := ["pear", "fig", "banana"]
print (sort_by (words, fun w: len w))
print (topk (words, [1, 3, 2], 2))
both := [1, 2] ++ [3]
both += [4]
print both
d := {"a": 1, "b": [true, false]}
print (d["a"], get (d, "z", 0), keys d, values d)
for k in d:
    print k
print (json_dump d)
parsed := json_parse "{\"k\": [1, 2.5, null, \"s\"]}"
print parsed["k"]
label := "big" if sum nums > 10 else "small"
print f"{label}: {nums} has {len nums} numbers, first {nums[0]}, {{braces}}"
if len words > 2:
    kind := "many"
else:
    kind := "few"
print kind
rec tally := fun (&total, n):
    if n > 0:
        total += n
        tally (&total, n - 1)
total := 0
tally (&total, 3)
print total
