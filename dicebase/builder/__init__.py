"""Solvers and the build pipeline: solve each game once, bulk-write its tables."""
