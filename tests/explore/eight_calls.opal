# Eight independent calls: 8! interleavings of their dispatches alone.
extern slow
(slow 1, slow 2, slow 3, slow 4, slow 5, slow 6, slow 7, slow 8)
