extern nums, num
print (sorted (nums 1 ++ [num 2]))
