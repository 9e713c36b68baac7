"""Spiders. Site spiders are not written by hand: the spider loader builds one
``RecipeSpider`` subclass per recipe file (``recipe``); ``args`` applies a run's spider
arguments to its recipe."""
