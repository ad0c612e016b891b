class Config(Base):
    size = 4
    def method(self):
        return self.size

try:
    import torch
except ImportError as e:
    raise RuntimeError("no torch") from e
finally:
    pass

async def main():
    async with lock:
        await run()

match command:
    case [x, y]:
        pass
del cache[0]
