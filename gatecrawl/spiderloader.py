"""A SpiderLoader that makes one spider per recipe, so `scrapy list`, `scrapy crawl <site>`
and Scrapyd see every site. A broken recipe is left out with its file, key and reason
(``broken``): its spider never runs, the other recipes' spiders still do."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.spiderloader import SpiderLoader

from gatecrawl.envsettings import setting_list
from gatecrawl.core.recipes import RecipeError, iter_recipe_sources, load_recipe_text
from gatecrawl.spiders.recipe import RecipeSpider

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)


def spider_class_for(recipe) -> type[RecipeSpider]:
    cls_name = "".join(part.capitalize() for part in recipe.name.replace("-", "_").split("_")) + "Spider"
    return type(cls_name, (RecipeSpider,), {"name": recipe.name, "recipe": recipe, "__module__": RecipeSpider.__module__})


class RecipeSpiderLoader(SpiderLoader):
    def __init__(self, settings: BaseSettings) -> None:
        self._recipe_dirs = tuple(setting_list(settings, "GATECRAWL_RECIPES_DIRS"))
        super().__init__(settings)

    def _load_all_spiders(self) -> None:
        super()._load_all_spiders()
        # A broken recipe does not take the other spiders down: it is left out of list() and
        # load(name) raises its RecipeError (file, key, reason).
        self.broken: dict[str, RecipeError] = {}
        for name, source, text in iter_recipe_sources(self._recipe_dirs):
            try:
                recipe = load_recipe_text(text, source=source, default_name=name)
                if recipe.name in self._spiders and getattr(self._spiders[recipe.name], "recipe", None) is not None:
                    raise RecipeError(source, "name", f"duplicate spider name {recipe.name!r}")
            except RecipeError as exc:
                self.broken.setdefault(name, exc)
                if logging.getLogger().handlers:  # a crawl's log (scrapy list reports it on stderr itself)
                    logger.warning("recipe skipped: %s", exc)
                continue
            self._spiders[recipe.name] = spider_class_for(recipe)
            self._found[recipe.name].append((source, recipe.name))

    def load(self, spider_name: str) -> type:
        if spider_name in getattr(self, "broken", {}) and spider_name not in self._spiders:
            raise self.broken[spider_name]
        return super().load(spider_name)
