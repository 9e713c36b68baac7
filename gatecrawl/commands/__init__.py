"""Scrapy commands added by gatecrawl (COMMANDS_MODULE): ``convert`` and ``crawl``."""
