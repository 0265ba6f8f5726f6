"""The benchmark harness: `python -m tests.benchmarks [--quick] [--posts 1000,10000,100000]`.

It seeds SQLite databases with realistic school news, serves them with a real
`sitehost serve`, drives them with wrk at 16 connections and compares every scenario
with the stack's own ceiling (a bare Bottle app on waitress with the same process and
thread settings). No file here is collected by pytest: timing never belongs in the suite.
"""
