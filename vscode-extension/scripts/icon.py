#!/usr/bin/env python3
"""Draws images/icon.png (128x128): an opal gem with a white lambda, in pure Python (zlib).

Each pixel is 4x4 supersampled for smooth edges. Run: python3 scripts/icon.py
"""
import math
import os
import struct
import zlib

N, S = 128, 4  # size, supersampling


def inside_poly(x, y, pts):
    c = False
    j = len(pts) - 1
    for i in range(len(pts)):
        xi, yi = pts[i]
        xj, yj = pts[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            c = not c
        j = i
    return c


def seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


# The gem: an octagon-ish cut stone; its facets are shaded by angle.
cx, cy = 64.0, 64.0
gem = [(cx + 58 * math.cos(math.radians(a)), cy + 58 * math.sin(math.radians(a))) for a in range(-90, 270, 45)]
table = [(cx + 30 * math.cos(math.radians(a)), cy + 30 * math.sin(math.radians(a))) for a in range(-90, 270, 45)]
# opal colours around the stone (play of colour): teal, blue, violet, pink, amber
palette = [(64, 200, 190), (70, 140, 230), (140, 100, 220), (225, 110, 170), (240, 180, 90), (90, 210, 140), (70, 160, 230), (150, 110, 225)]
# The lambda: two strokes.
lam = [((46, 30), (84, 100)), ((64, 64), (44, 100))]


def colour(x, y):
    if not inside_poly(x, y, gem):
        return None
    if inside_poly(x, y, table):
        t = (y - 34) / 60
        base = (int(40 + 40 * t), int(90 + 60 * (1 - t)), int(160 + 40 * (1 - t)))
    else:
        a = (math.degrees(math.atan2(y - cy, x - cx)) + 90 + 22.5) % 360
        base = palette[int(a // 45) % 8]
        r = math.hypot(x - cx, y - cy) / 58
        base = tuple(int(c * (0.75 + 0.25 * r)) for c in base)
    for (ax, ay), (bx, by) in lam:
        if seg_dist(x, y, ax, ay, bx, by) < 7.5:
            return (255, 255, 255)
    return base


rows = []
for py in range(N):
    row = bytearray([0])
    for px in range(N):
        acc = [0, 0, 0, 0]
        for sy in range(S):
            for sx in range(S):
                c = colour(px + (sx + 0.5) / S, py + (sy + 0.5) / S)
                if c:
                    acc[0] += c[0]
                    acc[1] += c[1]
                    acc[2] += c[2]
                    acc[3] += 1
        n = acc[3]
        if n:
            row += bytes([acc[0] // n, acc[1] // n, acc[2] // n, 255 * n // (S * S)])
        else:
            row += bytes([0, 0, 0, 0])
    rows.append(bytes(row))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", N, N, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "images", "icon.png")
with open(out, "wb") as f:
    f.write(png)
print(f"wrote {os.path.normpath(out)} ({len(png)} bytes, {N}x{N})")
