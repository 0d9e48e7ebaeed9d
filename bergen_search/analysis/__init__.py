"""Post-game analysis: every decision of every seat judged from that seat's information at
that moment (GNU Backgammon's analysis, for Bergen): the loss of each play against the best,
with its interval, a label only when the interval clears the threshold, suspected errors
searched again with a larger budget, and the luck of the deal and the draws. `review` does
the work; views/report.py writes it as text, JSON and HTML.
"""
from .review import Analysis, Decision, analyze, analyze_all, count_decisions

__all__ = ["Analysis", "Decision", "analyze", "analyze_all", "count_decisions"]
