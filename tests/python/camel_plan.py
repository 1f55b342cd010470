# A CaMeL-style plan: the privileged plan reads data with readonly tools, extracts what it
# needs with a quarantined model call per item (these overlap), then acts with sequential tools
# in program order.
import asyncio

from opal import readonly, sequential, unordered

INBOX = [
    {"from": "bob@example.com", "subject": "Lunch", "body": "Lunch at noon on Friday?"},
    {"from": "eve@example.com", "subject": "Invoice", "body": "Pay 100 EUR to IBAN X."},
    {"from": "ann@example.com", "subject": "Meeting", "body": "Meeting moved to 3pm."},
]
SENT = []


@readonly
def read_inbox(n):
    return INBOX[:n]


@unordered
async def quarantined_extract(body):
    await asyncio.sleep(0.02)
    words = body.split()
    return {"time": [w for w in words if w[0].isdigit()], "words": len(words)}


@sequential
def send_email(to, text):
    SENT.append((to, text))
    return len(SENT)


@readonly
def outbox():
    return list(SENT)


mails = read_inbox(3)
facts = [quarantined_extract(m["body"]) for m in mails]
for mail, fact in zip(mails, facts):
    if mail["from"].endswith("@example.com") and fact["time"]:
        n = send_email(mail["from"], f"Noted: {', '.join(fact['time'])}")
        print("sent", n, "to", mail["from"])
print(outbox())
