"""A SpiderLoader that makes one spider per recipe, so `scrapy list`, `scrapy crawl <site>`
and Scrapyd see every site. A broken recipe stops loading with its file, key and reason:
nothing runs on a broken recipe."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.spiderloader import SpiderLoader

from gatecrawl.envsettings import setting_list
from gatecrawl.core.recipes import RecipeError, iter_recipe_sources, load_recipe_text
from gatecrawl.spiders.recipe import RecipeSpider

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


def spider_class_for(recipe) -> type[RecipeSpider]:
    cls_name = "".join(part.capitalize() for part in recipe.name.replace("-", "_").split("_")) + "Spider"
    return type(cls_name, (RecipeSpider,), {"name": recipe.name, "recipe": recipe, "__module__": RecipeSpider.__module__})


class RecipeSpiderLoader(SpiderLoader):
    def __init__(self, settings: BaseSettings) -> None:
        self._recipe_dirs = tuple(setting_list(settings, "GATECRAWL_RECIPES_DIRS"))
        super().__init__(settings)

    def _load_all_spiders(self) -> None:
        super()._load_all_spiders()
        for name, source, text in iter_recipe_sources(self._recipe_dirs):
            recipe = load_recipe_text(text, source=source, default_name=name)
            if recipe.name in self._spiders and getattr(self._spiders[recipe.name], "recipe", None) is not None:
                raise RecipeError(source, "name", f"duplicate spider name {recipe.name!r}")
            self._spiders[recipe.name] = spider_class_for(recipe)
            self._found[recipe.name].append((source, recipe.name))
