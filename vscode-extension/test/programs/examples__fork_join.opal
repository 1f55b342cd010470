# §4.3: fork/join on handles. The two reads are independent and run in parallel;
# the write waits for both.
extern open, read, write
(thread, fd1) := open (stdout, "foo.txt")
(thread, thread2) := fork thread
(thread2, c) := read (thread2, fd1)
(thread, fd2) := open (thread, "bar.txt")
thread := join (thread, thread2)
thread := write (thread, fd2, c)
print (&thread, c)
print (&thread, "done")
