# EPIC appendix A.1, TextToSpeech: a shell pipeline of streaming processes.
extern gpt_joke
simple_shell := fun (cmd, s):
    (p_stdin, p_stdout) := create_process cmd
    () := fd_write_and_close (p_stdin, s)
    fd_read_and_close p_stdout
speak_jokes := fun (&stdout):
    jokes := ""
    for topic in ["dogs", "cats", "birds"]:
        jokes += gpt_joke topic
    pig_latin := simple_shell ("./pig_latin.sh", jokes)
    _ := simple_shell ("espeak", pig_latin)
speak_jokes (&stdout)
