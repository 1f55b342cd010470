# A three-stage pipeline per item (fetch, clean, summarize), each stage an external that
# needs the last: items flow through independently, so stage 2 of one item overlaps stage 1
# of the next.
import asyncio

from opal import unordered


@unordered
async def fetch(url):
    await asyncio.sleep(0.02)
    return f"<html>{url.split('/')[-1]}  content</html>"


@unordered
async def clean(html):
    await asyncio.sleep(0.01)
    return html.replace("<html>", "").replace("</html>", "").strip()


@unordered
async def summarize(text):
    await asyncio.sleep(0.02)
    return text.split()[0].upper()


urls = [f"https://example.com/page{i}" for i in range(1, 5)]
summaries = []
for url in urls:
    summaries.append(summarize(clean(fetch(url))))
print(summaries)
print(" / ".join(s.lower() for s in summaries))
