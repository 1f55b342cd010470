# EPIC's FactCheck (appendix A.2) in Python: an LLM asks for Wikipedia lookups until it has
# what it needs; the lookups of one reply are independent, so they overlap.
import asyncio

from opal import unordered

REPLIES = [
    ("Let me look up Juneau and Alaska.", ["Juneau", "Alaska"]),
    ("Juneau is the capital of Alaska: true.", []),
]
PAGES = {"Juneau": "Juneau (page)", "Alaska": "Alaska (page)"}


@unordered
async def gpt(tools, conversation):
    await asyncio.sleep(0.02)
    turn = conversation.count("\n") // 3
    return REPLIES[min(turn, len(REPLIES) - 1)]


@unordered
async def wiki_top_search_result(topic):
    await asyncio.sleep(0.02)
    return PAGES[topic]


@unordered
async def wiki_page_summary(page):
    await asyncio.sleep(0.02)
    return f"Summary of {page}."


def wiki_lookup(topic):
    page = wiki_top_search_result(topic)
    return wiki_page_summary(page)


def fact_checker(fact):
    conversation = [f"Is {fact} true?"]
    while True:
        response, topics = gpt("wikipedia", "\n".join(conversation))
        conversation = conversation + [response]
        print(response)
        if not topics:
            break
        results = [wiki_lookup(t) for t in topics]
        conversation = conversation + results
    return conversation


conversation = fact_checker("Juneau is the capital of Alaska")
print(len(conversation), "messages")
print(conversation[-2])
