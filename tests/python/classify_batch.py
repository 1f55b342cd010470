# Batch classification: label every ticket at once, count the labels, route the urgent ones
# with a sequential external that keeps their order.
import asyncio

from opal import sequential, unordered

TICKETS = [
    "Site is down for all users",
    "How do I change my avatar?",
    "Payment failed twice",
    "Feature request: dark mode",
    "Cannot log in, urgent",
]
ROUTED = []


@unordered
async def classify(text):
    await asyncio.sleep(0.02)
    lowered = text.lower()
    if "down" in lowered or "urgent" in lowered:
        return "urgent"
    if "payment" in lowered:
        return "billing"
    return "general"


@sequential
def route(ticket):
    ROUTED.append(ticket)
    return len(ROUTED)


labels = [classify(t) for t in TICKETS]
counts = {}
for label in labels:
    counts[label] = counts.get(label, 0) + 1
print(counts)
for ticket, label in zip(TICKETS, labels):
    if label == "urgent":
        print("routed", route(ticket), ticket)
print(sorted(counts, key=lambda k: (-counts[k], k)))
