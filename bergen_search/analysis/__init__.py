"""Post-game analysis (GNU Backgammon's, for Bergen): `review` judges every decision and the
luck of the deal and the draws; views/report.py writes it as text, JSON and HTML."""
from .review import Analysis, Decision, analyze, analyze_all, count_decisions

__all__ = ["Analysis", "Decision", "analyze", "analyze_all", "count_decisions"]
