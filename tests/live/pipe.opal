# A two-process pipeline without a shell (needs --allow-exec).
(i, o) := create_process ("tr", "a-z", "A-Z")
() := fd_write_and_close (i, "hello\nworld\n")
for line in fd_read_and_close o:
    print (&stdout, line)
