# EPIC's TextToSpeech (appendix A.1) in Python: an LLM writes a story, each paragraph is
# spoken by a (mocked) text-to-speech external while the next paragraphs are still being
# written, and the audio files are joined in order by a sequential external.
import asyncio

from opal import sequential, unordered

PARAGRAPHS = ["Once upon a time.", "A fox met a crow.", "The crow sang.", "The end."]
JOINED = []


@unordered
async def write_story(topic):
    for p in PARAGRAPHS:
        await asyncio.sleep(0.01)
        yield p


@unordered
async def speak(paragraph):
    await asyncio.sleep(0.03)
    return f"audio[{len(paragraph)}]"


@sequential
def append_audio(clip):
    JOINED.append(clip)
    return len(JOINED)


for paragraph in write_story("a fable"):
    clip = speak(paragraph)
    n = append_audio(clip)
    print(n, paragraph, clip)
print("clips:", len(PARAGRAPHS))
