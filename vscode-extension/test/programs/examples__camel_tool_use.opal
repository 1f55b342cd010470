# A CaMeL-style tool-use plan (Debenedetti et al. 2026; PopPy §8): the kind of program an
# agent writes against its tools. Reading tools are readonly (they may overlap each other but
# never a write), sending mail is sequential, the assistant is unordered. Each email's
# summary and extraction run at once; the replies go out in order, after what they read.
extern readonly get_unread_emails, search_calendar
extern sequential send_email
extern query_ai

emails := get_unread_emails ()
for e in emails:
    summary := query_ai f"Summarize in one line: {e["body"]}"
    meeting := json_parse (query_ai f"As JSON {{\"day\": …}}, when does this ask to meet? {e["body"]}")
    slots := search_calendar meeting["day"]
    reply := {"to": e["from"], "subject": "Re: " + e["subject"], "body": f"{summary} I am free {slots[0]}."}
    send_email reply
    print f"replied to {e["from"]}: {len slots} free slots on {meeting["day"]}"
print "inbox done"
