"""Storage layout of rolled_ones (filled below)."""

from __future__ import annotations
