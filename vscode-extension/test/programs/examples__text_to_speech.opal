# EPIC appendix A.1, TextToSpeech: three LLM jokes (independent, so they run at once), then a
# shell pipeline. The world file mocks the LLM and the processes, so no program is started.
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
    print (&stdout, pig_latin)
    spoken := simple_shell ("espeak", pig_latin)
    print (&stdout, spoken)
speak_jokes (&stdout)
