# An OpenAI-style client object that stays in CPython's worker: internal code reads its
# attributes and calls its methods with keyword arguments (each a sequential external), and
# calls str methods OPAL's library does not have (they run in CPython too).
from opal import unordered


class Completions:
    def create(self, model, messages, temperature=1.0):
        return {"model": model, "reply": messages[-1]["content"].upper(), "t": temperature}


class Chat:
    def __init__(self):
        self.completions = Completions()


class Client:
    def __init__(self, key):
        self.key = key
        self.chat = Chat()


@unordered
def connect(key):
    return Client(key)


client = connect("sk-test")
print(client.key)
r = client.chat.completions.create(model="m1", messages=[{"role": "user", "content": "hi"}])
print(r["reply"], r["model"], r["t"])
print("abc".zfill(5), "x".center(5, "*"), "Straße".casefold())
