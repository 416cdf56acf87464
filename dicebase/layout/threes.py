"""Storage layout of threes (filled below)."""

from __future__ import annotations
