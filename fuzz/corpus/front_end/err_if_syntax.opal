if  x:
else
