# Structured extraction: an LLM answers in JSON for each document (all at once), the script
# parses each answer with json.loads and aggregates, keeping documents whose answer fails.
import asyncio
import json

from opal import unordered

ANSWERS = {
    "invoice-1": '{"total": 120.5, "currency": "EUR", "items": 3}',
    "invoice-2": '{"total": 80, "currency": "EUR", "items": 1}',
    "invoice-3": "Sorry, I cannot read this scan.",
    "invoice-4": '{"total": 42.25, "currency": "USD", "items": 2}',
}


@unordered
async def extract(doc):
    await asyncio.sleep(0.03)
    return ANSWERS[doc]


docs = sorted(ANSWERS)
answers = [extract(d) for d in docs]
totals = {}
failed = []
for doc, answer in zip(docs, answers):
    try:
        data = json.loads(answer)
    except json.JSONDecodeError:
        failed.append(doc)
    else:
        totals[data["currency"]] = totals.get(data["currency"], 0) + data["total"]
print(totals)
print("unreadable:", failed)
print(f"EUR average: {totals['EUR'] / 2:.2f}")
